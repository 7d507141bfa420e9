import { systemClock, type Clock } from '../../util/clock.js';
import { breakReason, heldBy, type LockRow, type LockTaker } from '../lock/lock-policy.js';
import { LAPSED } from './pg-members.js';
import { TX_MARK_COLUMNS, markOf, type StoreTx } from './pg-commit.js';
import type { PgDb } from './pg-connection.js';
import { appendEvents, type OpScope } from './pg-events.js';

/**
 * The run lock on PostgreSQL: one row of `locks` per name, its rules lock/lock-policy.ts's, the
 * holder's heartbeat lock/acquire-lock.ts's. Each function runs in a transaction of its own.
 */

/** The database's clock, in epoch milliseconds. */
export const DATABASE_NOW = '(extract(epoch from clock_timestamp()) * 1000)::bigint';

/**
 * Where lock times (taken, beaten, judged stale) and the account's (account-sql.ts `$dbnow`) come from — the one place this is chosen.
 * Policy: on the system clock, from the DATABASE's clock: holders on many hosts are judged by one
 * clock, so a host whose clock is off neither breaks a live holder's lock nor keeps a dead one's.
 * With an injected clock (tests pin lock times to their ManualClock), from that clock.
 */
export function lockNow(clock: Clock, params: unknown[]): string {
  if (clock === systemClock) return DATABASE_NOW;
  params.push(clock.now());
  return `$${params.length}::bigint`;
}

type Taker = LockTaker & { name: string; token: string; pid: number };

/** Takes the lock for `taker`, breaking a gone holder's (logged), or throws LockedError. */
export async function takeLock(tx: StoreTx, scope: OpScope, clock: Clock, taker: Taker): Promise<void> {
  // A live member of a run sharing the manifest (pg-members.ts) holds it as the lock's holder would:
  // its lock stands whether or not the manifest's own does (its first member may have left or died).
  const memberParams: unknown[] = [taker.name];
  const [member] = await tx.query<LockRow>(`SELECT * FROM locks WHERE member_of = $1 AND NOT ${LAPSED(lockNow(clock, memberParams))} ORDER BY name LIMIT 1`, memberParams);
  if (member) throw heldBy(member, taker.name);
  for (;;) {
    const params: unknown[] = [taker.name];
    const [read] = await tx.query<Partial<LockRow> & { now: number; tx_xid: string; tx_pid: number }>(
      `SELECT ${TX_MARK_COLUMNS}, ${lockNow(clock, params)} AS now, l.* FROM (SELECT 1) one LEFT JOIN LATERAL (SELECT * FROM locks WHERE name = $1 FOR UPDATE) l ON true`,
      params,
    );
    tx.marked(markOf([read!]));
    const { now } = read!;
    const holder = [taker.name, scope.runId, taker.host, taker.pid, now, taker.token, taker.pidNamespace, taker.staleAfterMs];
    if (read!.name === null || read!.name === undefined) {
      // Another taker may have inserted it since: then its row is read (and judged) again.
      const taken = await tx.query(
        'INSERT INTO locks (name, run_id, host, pid, acquired_at, heartbeat_at, token, pid_ns, lease_ms) VALUES ($1, $2, $3, $4, $5, $5, $6, $7, $8) ON CONFLICT (name) DO NOTHING RETURNING name',
        holder,
      );
      if (taken.length === 0) continue;
      await appendEvents(tx, scope, [{ key: null, type: 'lock:acquired', data: { name: taker.name, host: taker.host, pid: taker.pid } }]);
      return;
    }
    const held = read as LockRow;
    const reason = breakReason(held, taker, now);
    if (reason instanceof Error) throw reason;
    await tx.query('UPDATE locks SET run_id = $2, host = $3, pid = $4, acquired_at = $5, heartbeat_at = $5, token = $6, pid_ns = $7, lease_ms = $8 WHERE name = $1', holder);
    await appendEvents(tx, scope, [
      { key: null, type: 'lock:broken', data: { name: taker.name, host: held.host, pid: held.pid, reason } },
      { key: null, type: 'lock:acquired', data: { name: taker.name, host: taker.host, pid: taker.pid } },
    ]);
    return;
  }
}

/** Refreshes the heartbeat of our lock; false (logged as lost) once the row is not ours. */
export async function beatLock(tx: StoreTx, scope: OpScope, clock: Clock, name: string, token: string): Promise<boolean> {
  const params: unknown[] = [name, token];
  const beaten = await tx.query(`UPDATE locks SET heartbeat_at = ${lockNow(clock, params)} WHERE name = $1 AND token = $2 RETURNING name`, params);
  if (beaten.length > 0) return true;
  await appendEvents(tx, scope, [{ key: null, type: 'lock:lost', data: { name } }]);
  return false;
}

/** Gives the lock up, only ours. */
export async function releaseLock(tx: StoreTx, scope: OpScope, name: string, token: string): Promise<void> {
  await tx.query('DELETE FROM locks WHERE name = $1 AND token = $2', [name, token]);
  await appendEvents(tx, scope, [{ key: null, type: 'lock:released', data: { name } }]);
}

/** Removes the lock if `token` still holds it; logged as forced with `data`. */
export async function forceUnlock(tx: StoreTx, scope: OpScope, name: string, token: string | null, data: Record<string, unknown>): Promise<boolean> {
  const removed = await tx.query('DELETE FROM locks WHERE name = $1 AND token IS NOT DISTINCT FROM $2::text RETURNING name', [name, token]);
  if (removed.length === 0) return false;
  await appendEvents(tx, scope, [{ key: null, type: 'lock:forced', data: { name, ...data } }]);
  return true;
}

export async function lockRow(db: PgDb, name: string): Promise<LockRow | undefined> {
  const [row] = await db.query<LockRow>('SELECT * FROM locks WHERE name = $1', [name]);
  return row;
}
