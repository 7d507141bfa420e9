import type { Clock } from '../../util/clock.js';
import type { LockTaker } from '../lock/lock-policy.js';
import { TX_MARK_COLUMNS, markOf, type StoreTx } from './pg-commit.js';
import type { PgDb } from './pg-connection.js';
import { appendEvents, type EventRow, type OpScope } from './pg-events.js';
import { lockNow } from './pg-lock.js';
import type { RunTerms } from '../run-members.js';

/**
 * Several processes (hosts) sharing one run of a manifest, on PostgreSQL (run/members.ts says
 * how a run uses them). The first member holds the manifest's own lock; every member that joins
 * holds a lock of its own (`member_of` names the manifest), heartbeaten and fenced like the run
 * lock (lock/acquire-lock.ts, lock/fence.ts). A member's lock is its lease on the jobs it claimed
 * (jobs.claim_run = its run): while the lock lives no other member claims them; once its lease
 * lapsed (the database's clock), the next claim of any member deletes the lock — fencing every
 * write the lapsed member still tries — and takes its jobs over (pg-claims.ts).
 *
 *   (none) ──run: takeLock──▶ first member ─┐
 *   (none) ──run: lock held live──▶ join ───┴▶ busy ⇄ idle ──leave──▶ (gone; the last one ends the run)
 *                                     busy/idle ──lease lapsed──▶ broken by a claim or a leave (taken over)
 */

/** The locks of a manifest's run, as a condition on `locks` (`m`: the manifest's name, as SQL). */
export const RUN_LOCKS = (m: string) => `(name = ${m} OR member_of = ${m})`;

/** Lapsed: the holder's heartbeat older than its lease (`now`: the lock clock's time, as SQL). An older row without a lease: the default's. */
export const LAPSED = (now: string) => `heartbeat_at + coalesce(lease_ms, 60000) < ${now}`;

/** Why a member's lock is deleted by another member, as its `lock:broken` event says. */
const TAKEN_OVER = 'its lease lapsed (no heartbeat by the database clock): a member of the run takes its jobs over';

/** One transaction at a time per manifest joins or leaves its run: who is last is decided once. */
const serialise = (tx: StoreTx, manifest: string) => tx.query(`SELECT pg_advisory_xact_lock(hashtext('reelpipe run ' || $1))`, [manifest]);

/**
 * Joins the run whose lock `manifest` a live run holds, as `taker` (its lock named by
 * memberLockName); the member's run row records the run joined (runs.joined: the first member's
 * id). Null when no member is left (the run ended meanwhile): the caller takes the lock itself.
 */
export async function joinRun(
  tx: StoreTx, scope: OpScope & { manifest: string; runId: number }, clock: Clock, taker: LockTaker & { name: string; token: string; pid: number }, terms: string,
): Promise<{ runId: number; host: string } | { refused: RunTerms } | null> {
  const rows = await tx.query<{ tx_xid: string; tx_pid: number }>(`SELECT ${TX_MARK_COLUMNS}`);
  tx.marked(markOf(rows));
  await serialise(tx, scope.manifest);
  const params: unknown[] = [scope.manifest];
  const now = lockNow(clock, params);
  const [lead] = await tx.query<{ run_id: number | null; host: string; joined: number | null; terms: string | null }>(
    `SELECT l.run_id, l.host, r.joined, (SELECT terms FROM runs WHERE id = coalesce(r.joined, r.id)) AS terms FROM locks l LEFT JOIN runs r ON r.id = l.run_id
     WHERE ${RUN_LOCKS('$1')} AND NOT ${LAPSED(now)} ORDER BY (l.name = $1) DESC, l.acquired_at LIMIT 1`,
    params,
  );
  if (!lead || lead.run_id === null) return null;
  const joined = Number(lead.joined ?? lead.run_id);
  // Every member runs the same plan: the first member's terms, recorded as it started, decide.
  if (lead.terms !== null && lead.terms !== terms) return { refused: { runId: joined, host: lead.host, terms: lead.terms } };
  const insert: unknown[] = [taker.name, scope.runId, taker.host, taker.pid, taker.token, taker.pidNamespace, taker.staleAfterMs, scope.manifest];
  await tx.query(
    `INSERT INTO locks (name, run_id, host, pid, acquired_at, heartbeat_at, token, pid_ns, lease_ms, member_of)
     VALUES ($1, $2, $3, $4, ${lockNow(clock, insert)}, ${lockNow(clock, insert)}, $5, $6, $7, $8)`,
    insert,
  );
  await tx.query('UPDATE runs SET joined = $2, terms = $3 WHERE id = $1', [scope.runId, joined, terms]);
  await appendEvents(tx, scope, [{ key: null, type: 'run:joined', data: { run: joined, host: taker.host, pid: taker.pid, lock: taker.name } }]);
  return { runId: joined, host: lead.host };
}

/** Records the terms of run `runId` (its first member's): the members joining it must bring the same. */
export async function declareTerms(db: PgDb, runId: number, terms: string): Promise<void> {
  await db.query('UPDATE runs SET terms = $2 WHERE id = $1', [runId, terms]);
}

/** Marks this member busy (driving jobs) or idle (nothing left to drive); false once its lock is gone. */
export async function markIdle(db: PgDb, clock: Clock, lock: string, token: string, idle: boolean): Promise<boolean> {
  const params: unknown[] = [lock, token];
  const rows = await db.query(`UPDATE locks SET idle_at = ${idle ? lockNow(clock, params) : 'NULL'} WHERE name = $1 AND token = $2 RETURNING name`, params);
  return rows.length > 0;
}

/** The other members of the run still busy (lapsed ones included: the next claim takes their jobs over), by host. */
export async function busyMembers(db: PgDb, manifest: string, token: string): Promise<string[]> {
  const rows = await db.query<{ host: string }>(`SELECT host FROM locks WHERE ${RUN_LOCKS('$1')} AND token IS DISTINCT FROM $2 AND idle_at IS NULL ORDER BY name`, [manifest, token]);
  return rows.map((row) => row.host);
}

/** The jobs of the manifest claimed by another member whose lock still stands: theirs to drive. */
export async function heldByOthers(db: PgDb, manifest: string, runId: number | null): Promise<Set<string>> {
  const rows = await db.query<{ key: string }>(
    `SELECT key FROM jobs WHERE manifest = $1 AND claim_run IN (SELECT run_id FROM locks WHERE ${RUN_LOCKS('$1')} AND run_id IS NOT NULL AND run_id IS DISTINCT FROM $2::bigint)`,
    [manifest, runId],
  );
  return new Set(rows.map((row) => row.key));
}

/**
 * This member leaves the run: its lock deleted, and any other member's whose lease lapsed (its
 * jobs are left to the next run; a paused member that wakes finds itself fenced). Answers
 * whether it was the last: the one that ends the run (reports, hooks, notifications), once.
 */
export async function leaveRun(tx: StoreTx, scope: OpScope & { manifest: string }, clock: Clock, lock: string, token: string): Promise<boolean> {
  const rows = await tx.query<{ tx_xid: string; tx_pid: number }>(`SELECT ${TX_MARK_COLUMNS}`);
  tx.marked(markOf(rows));
  await serialise(tx, scope.manifest);
  await tx.query('DELETE FROM locks WHERE name = $1 AND token = $2', [lock, token]);
  const gone = await deleteLapsed(tx, scope.manifest, clock);
  const [left] = await tx.query<{ n: string }>(`SELECT count(*) AS n FROM locks WHERE ${RUN_LOCKS('$1')}`, [scope.manifest]);
  const last = Number(left?.n ?? 0) === 0;
  await appendEvents(tx, scope, [...brokenEvents(gone), { key: null, type: 'run:left', data: { lock, last } }]);
  return last;
}

/**
 * Deletes the locks of the manifest's run members whose lease lapsed (all but run `except`'s, a
 * claiming run's own) and answers whose they were: a claim takes their jobs over, a leave leaves
 * them to the next run. A statement of its own, never a CTE of a pick (pg-claims.ts says why).
 */
export async function deleteLapsed(tx: StoreTx, manifest: string, clock: Clock, except: number | null = null): Promise<{ name: string; host: string; pid: number }[]> {
  const params: unknown[] = [manifest];
  const others = except === null ? '' : ` AND run_id IS DISTINCT FROM $${params.push(except)}::bigint`;
  return tx.query<{ name: string; host: string; pid: number }>(`DELETE FROM locks WHERE ${RUN_LOCKS('$1')}${others} AND ${LAPSED(lockNow(clock, params))} RETURNING name, host, pid`, params);
}

/** The events of members' locks a claim or a leave deleted, their leases lapsed. */
export const brokenEvents = (gone: readonly { name: string; host: string; pid: number }[]): EventRow[] =>
  gone.map((held) => ({ key: null, type: 'lock:broken', data: { name: held.name, host: held.host, pid: Number(held.pid), reason: TAKEN_OVER } }));
