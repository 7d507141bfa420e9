import { randomUUID } from 'node:crypto';
import { thisHost } from '../../util/host-name.js';
import type { Store } from '../store.js';
import { memberLockName, RunTermsError } from '../run-members.js';
import { currentPidNamespace, LOCK_HEARTBEAT_MS, LOCK_STALE_AFTER_MS, pidIsAlive, type HeldLock, type LockOptions, type LockTaker } from './lock-policy.js';

/**
 * Takes the run lock (lock-policy.ts says when a holder's may be broken), or throws LockedError
 * (exit 75) at once if a live run holds it; then keeps it with a heartbeat until released.
 */
export async function acquireLock(store: Store, options: LockOptions): Promise<HeldLock> {
  const taker = takerOf(options, options.name);
  const asked = performance.now();
  await store.takeLock(taker);
  return holdLock(store, { name: taker.name, token: taker.token, joined: null }, { ...taker, asked }, options);
}

/** Who takes a lock named `name`, from the options with their defaults. */
function takerOf(options: LockOptions, name: string): LockTaker & { name: string; token: string; pid: number } {
  return {
    name,
    token: options.token ?? randomUUID(),
    host: options.host ?? thisHost(),
    pid: options.pid ?? process.pid,
    pidNamespace: options.pidNamespace === undefined ? currentPidNamespace() : options.pidNamespace,
    isAlive: options.isAlive ?? pidIsAlive,
    heartbeatMs: options.heartbeatMs ?? LOCK_HEARTBEAT_MS,
    staleAfterMs: options.staleAfterMs ?? LOCK_STALE_AFTER_MS,
  };
}

/**
 * `run` where another live run holds the manifest's lock, on a store several processes share
 * (Store.members): joins that run as a member, under a lock of its own (run-members.ts) kept like
 * the run lock. Null when the store runs one process per manifest (SQLite), or when the run ended
 * meanwhile (the caller takes the manifest's lock again). RunTermsError (exit 2) when `terms`
 * (what every member must run alike) are not the run's.
 */
export async function joinLiveRun(store: Store, options: LockOptions, terms: string): Promise<HeldLock | null> {
  if (store.members === null || store.runId === null) return null;
  const taker = takerOf(options, memberLockName(options.name, store.runId));
  const asked = performance.now();
  const joined = await store.members.join(taker, terms);
  if (joined && 'refused' in joined) throw new RunTermsError(joined.refused);
  return joined && holdLock(store, { name: taker.name, token: taker.token, joined }, { ...taker, asked }, options);
}

/**
 * The holder's side. Policy: every heartbeat checks the lock is still ours (by token); if another
 * run broke it (our heartbeat looked stale), `onLost` tells the run to stop at once — two runs of
 * one manifest must never work side by side — and nothing more is written to the lock. A beat does
 * not wait behind the run's writes (a backlog must not outlast the lease: PgStore.beatLock says
 * why); one still on its way when the next is due is not doubled.
 */
function holdLock(
  store: Store,
  identity: Pick<HeldLock, 'name' | 'token' | 'joined'>,
  times: { heartbeatMs: number; staleAfterMs: number; asked: number },
  on: Pick<LockOptions, 'onLost' | 'onFault'>,
): HeldLock {
  const { heartbeatMs } = times;
  const { name, token } = identity;
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
  const held: HeldLock = {
    ...identity,
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
    leave: async () => {
      if (released) return false;
      if (store.members === null) {
        await held.release();
        return true;
      }
      released = true;
      clearInterval(timer);
      await beating;
      return lost ? false : store.members.leave(name, token);
    },
  };
  return held;
}
