import { breakReason, type LockRow, type LockTaker } from '../lock/lock-policy.js';
import type { StateStore } from './job-store.js';
import { statement } from './statements.js';

/**
 * The run lock in SQLite: one row of `locks` per name. Its rules are lock/lock-policy.ts's; the
 * holder's heartbeat is lock/acquire-lock.ts's. Each function runs inside the store's transaction.
 */

/** Takes the lock for `taker`, breaking a gone holder's (logged), or throws LockedError. */
export function takeLock(store: StateStore, taker: LockTaker & { name: string; token: string; pid: number }): void {
  const now = store.clock.now();
  const held = lockRow(store, taker.name);
  if (held) {
    const reason = breakReason(held, taker, now);
    if (reason instanceof Error) throw reason;
    store.event('lock:broken', null, { name: taker.name, host: held.host, pid: held.pid, reason });
    statement(store.db, 'DELETE FROM locks WHERE name = ?').run(taker.name);
  }
  statement(store.db, 'INSERT INTO locks (name, run_id, host, pid, acquired_at, heartbeat_at, token, pid_ns, lease_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
    .run(taker.name, store.runId, taker.host, taker.pid, now, now, taker.token, taker.pidNamespace, taker.staleAfterMs);
  store.event('lock:acquired', null, { name: taker.name, host: taker.host, pid: taker.pid });
}

/** Refreshes the heartbeat of our lock; false (logged as lost) once the row is not ours. */
export function beatLock(store: StateStore, name: string, token: string): boolean {
  const info = statement(store.db, 'UPDATE locks SET heartbeat_at = ? WHERE name = ? AND token = ?').run(store.clock.now(), name, token);
  if (info.changes > 0) return true;
  store.event('lock:lost', null, { name });
  return false;
}

export function releaseLock(store: StateStore, name: string, token: string): void {
  statement(store.db, 'DELETE FROM locks WHERE name = ? AND token = ?').run(name, token);
  store.event('lock:released', null, { name });
}

export function lockRow(store: StateStore, name: string): LockRow | undefined {
  return statement(store.db, 'SELECT * FROM locks WHERE name = ?').get(name) as LockRow | undefined;
}

/** The token the lock `name` holds now (null: nobody holds it): what a fenced write checks (lock/fence.ts). */
export function lockToken(store: StateStore, name: string): string | null {
  return (statement(store.db, 'SELECT token FROM locks WHERE name = ?', { pluck: true }).get(name) as string | null | undefined) ?? null;
}

/** Removes the lock if `token` still holds it; logged as forced with `data`. */
export function forceUnlock(store: StateStore, name: string, token: string | null, data: Record<string, unknown>): boolean {
  if (statement(store.db, 'DELETE FROM locks WHERE name = ? AND token IS ?').run(name, token).changes === 0) return false;
  store.event('lock:forced', null, { name, ...data });
  return true;
}
