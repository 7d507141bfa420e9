import { CLAIMED_STATUSES } from './sqlite/claims.js';

/**
 * `reelpipe hosts`: the members of a manifest's newest run (run/members.ts), read alike from
 * both stores — one run row per member (a member that joined names the run: runs.joined), its
 * lock while it holds one, and the jobs it holds (claimed, not settled).
 */

/** One member of a run, as read. */
export interface MemberRow {
  /** The member's own run row. */
  runId: number;
  /** The run it belongs to (its first member's id). */
  run: number;
  host: string;
  pid: number;
  startedAt: number;
  finishedAt: number | null;
  outcome: string | null;
  /** Its lock's last heartbeat (null: it holds no lock: it left, or died and was taken over). */
  heartbeatAt: number | null;
  leaseMs: number | null;
  idleAt: number | null;
  /** Jobs it claimed that are not settled: to send, reconcile, track or download. */
  held: number;
  /**
   * The database's clock as it was read (PostgreSQL, whose clock times the heartbeats), else null:
   * where a member stands is judged by it, not by the reading host's clock, which may be off.
   */
  readAt: number | null;
}

/** Where a member stands: busy or idle (its lock live), lapsed (its lease ran out: it is taken over at the next claim), left (it ended), gone (it died; its lock was broken). */
export type MemberState = 'busy' | 'idle' | 'lapsed' | 'left' | 'gone';

export function memberState(row: MemberRow, now: number): MemberState {
  if (row.heartbeatAt !== null) {
    if (row.heartbeatAt + (row.leaseMs ?? 60_000) < (row.readAt ?? now)) return 'lapsed';
    return row.idleAt === null ? 'busy' : 'idle';
  }
  return row.finishedAt === null ? 'gone' : 'left';
}

/** The statement, `m` the manifest's placeholder in the store's dialect, `now` its clock's expression where heartbeats are its times. */
export const membersSql = (m: string, now = 'NULL'): string => `
  SELECT ${now} AS "readAt", r.id AS "runId", coalesce(r.joined, r.id) AS run, r.host, r.pid, r.started_at AS "startedAt", r.finished_at AS "finishedAt", r.outcome,
    l.heartbeat_at AS "heartbeatAt", l.lease_ms AS "leaseMs", l.idle_at AS "idleAt",
    (SELECT count(*) FROM jobs j WHERE j.manifest = r.manifest AND j.claim_run = r.id
       AND j.status IN (${CLAIMED_STATUSES}, 'done')) AS held
  FROM runs r LEFT JOIN locks l ON l.run_id = r.id AND (l.name = r.manifest OR l.member_of = r.manifest)
  WHERE r.manifest = ${m} AND r.refusal IS NULL
    AND coalesce(r.joined, r.id) = (SELECT max(coalesce(joined, id)) FROM runs WHERE manifest = ${m} AND refusal IS NULL)
  ORDER BY r.id`;

/** A row as the driver gave it (PostgreSQL's BIGINT and count come as text): numbers where numbers are meant. */
export const memberRowOf = (row: Record<string, unknown>): MemberRow => {
  const n = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return {
    runId: Number(row.runId), run: Number(row.run), host: String(row.host), pid: Number(row.pid), startedAt: Number(row.startedAt),
    finishedAt: n(row.finishedAt), outcome: (row.outcome as string | null) ?? null, heartbeatAt: n(row.heartbeatAt), leaseMs: n(row.leaseMs),
    idleAt: n(row.idleAt), held: Number(row.held), readAt: n(row.readAt),
  };
};
