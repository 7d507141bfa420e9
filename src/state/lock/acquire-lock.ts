import { randomUUID } from 'node:crypto';
import { thisHost } from '../../util/host-name.js';
import type { Store } from '../store.js';
import { currentPidNamespace, LOCK_HEARTBEAT_MS, LOCK_STALE_AFTER_MS, pidIsAlive, type HeldLock, type LockOptions } from './lock-policy.js';

/**
 * Takes the run lock (lock-policy.ts says when a holder's may be broken), or throws LockedError
 * (exit 75) at once if a live run holds it; then keeps it with a heartbeat until released.
 */
export async function acquireLock(store: Store, options: LockOptions): Promise<HeldLock> {
  const token = options.token ?? randomUUID();
  const heartbeatMs = options.heartbeatMs ?? LOCK_HEARTBEAT_MS;
  const staleAfterMs = options.staleAfterMs ?? LOCK_STALE_AFTER_MS;
  const asked = performance.now();
  await store.takeLock({
    name: options.name,
    token,
    host: options.host ?? thisHost(),
    pid: options.pid ?? process.pid,
    pidNamespace: options.pidNamespace === undefined ? currentPidNamespace() : options.pidNamespace,
    isAlive: options.isAlive ?? pidIsAlive,
    heartbeatMs,
    staleAfterMs,
  });
  return holdLock(store, options.name, token, { heartbeatMs, staleAfterMs, asked }, options);
}

/**
 * The holder's side. Policy: every heartbeat checks the lock is still ours (by token); if another
 * run broke it (our heartbeat looked stale), `onLost` tells the run to stop at once — two runs of
 * one manifest must never work side by side — and nothing more is written to the lock. A beat is
 * a write like any other (it waits its turn with the run's writes); one still on its way when the
 * next is due is not doubled.
 */
function holdLock(
  store: Store,
  name: string,
  token: string,
  times: { heartbeatMs: number; staleAfterMs: number; asked: number },
  on: Pick<LockOptions, 'onLost' | 'onFault'>,
): HeldLock {
  const { heartbeatMs } = times;
  let lost = false;
  let faulted = false;
  let released = false;
  let beating: Promise<boolean> | null = null;
  // The lease, on this process's monotonic clock: another run may break the lock once its
  // heartbeat is older than staleAfterMs, and the heartbeat row was written no earlier than the
  // beat that wrote it was asked. So until (the last good beat's asking + staleAfterMs) nobody can
  // have broken it; a margin of one heartbeat (a quarter of the lease at most) is kept on top. A
  // process paused past it (SIGSTOP, a frozen VM) finds it gone when it wakes, whatever its timers did.
  const margin = Math.min(heartbeatMs, times.staleAfterMs / 4);
  const endFrom = (asked: number) => asked + times.staleAfterMs - margin;
  let leaseEnd = endFrom(times.asked);
  const valid = () => !lost && !released && performance.now() < leaseEnd;
  const write = async (): Promise<boolean> => {
    const asked = performance.now();
    if (await store.beatLock(name, token)) {
      leaseEnd = Math.max(leaseEnd, endFrom(asked));
      return true;
    }
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
    valid,
    fresh: async () => {
      if (valid()) return true;
      if (lost || released) return false;
      await beat();
      return valid();
    },
    release: async () => {
      if (released) return;
      released = true;
      clearInterval(timer);
      await beating;
      await store.releaseLock(name, token);
    },
  };
}
