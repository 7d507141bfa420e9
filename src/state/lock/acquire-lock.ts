import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Store } from '../store.js';
import { currentPidNamespace, LOCK_HEARTBEAT_MS, LOCK_STALE_AFTER_MS, pidIsAlive, type HeldLock, type LockOptions } from './lock-policy.js';

/**
 * Takes the run lock (lock-policy.ts says when a holder's may be broken), or throws LockedError
 * (exit 75) at once if a live run holds it; then keeps it with a heartbeat until released.
 */
export async function acquireLock(store: Store, options: LockOptions): Promise<HeldLock> {
  const token = options.token ?? randomUUID();
  const heartbeatMs = options.heartbeatMs ?? LOCK_HEARTBEAT_MS;
  await store.takeLock({
    name: options.name,
    token,
    host: options.host ?? hostname(),
    pid: options.pid ?? process.pid,
    pidNamespace: options.pidNamespace === undefined ? currentPidNamespace() : options.pidNamespace,
    isAlive: options.isAlive ?? pidIsAlive,
    heartbeatMs,
    staleAfterMs: options.staleAfterMs ?? LOCK_STALE_AFTER_MS,
  });
  return holdLock(store, options.name, token, heartbeatMs, options);
}

/**
 * The holder's side. Policy: every heartbeat checks the lock is still ours (by token); if another
 * run broke it (our heartbeat looked stale), `onLost` tells the run to stop at once — two runs of
 * one manifest must never work side by side — and nothing more is written to the lock. A beat is
 * a write like any other (it waits its turn with the run's writes); one still on its way when the
 * next is due is not doubled.
 */
function holdLock(store: Store, name: string, token: string, heartbeatMs: number, on: Pick<LockOptions, 'onLost' | 'onFault'>): HeldLock {
  let lost = false;
  let faulted = false;
  let released = false;
  let beating: Promise<boolean> | null = null;
  const write = async (): Promise<boolean> => {
    if (await store.beatLock(name, token)) return true;
    lost = true;
    on.onLost?.();
    return false;
  };
  // Why a heartbeat never rejects: it runs on a timer, where a rejection would kill the process
  // uncaught, leaving no summary; a fault is handed to the run, which stops and reports it.
  const beat = (): Promise<boolean> => {
    if (lost || released) return Promise.resolve(!lost);
    beating ??= write()
      .catch((error: unknown) => {
        if (!faulted) {
          faulted = true;
          on.onFault?.(error instanceof Error ? error : new Error(String(error)));
        }
        return true;
      })
      .finally(() => {
        beating = null;
      });
    return beating;
  };
  const timer = setInterval(() => void beat(), heartbeatMs);
  timer.unref();
  return {
    beat,
    release: async () => {
      if (released) return;
      released = true;
      clearInterval(timer);
      await beating;
      await store.releaseLock(name, token);
    },
  };
}
