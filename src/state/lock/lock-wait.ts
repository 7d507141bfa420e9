import { LockedError } from '../../errors.js';
import { formatDuration } from '../../util/time-format.js';
import type { Store } from '../store.js';
import { acquireLock } from './acquire-lock.js';
import type { HeldLock, LockOptions } from './lock-policy.js';

/** Options of acquireLockWaiting, beyond those of acquireLock. */
export interface LockWaitOptions extends LockOptions {
  /** How long to keep trying before giving up with LockedError (exit 75). 0: try once. @default 0 */
  waitMs?: number;
  /** Ends the wait early (a signal to the run), with the last LockedError. @default none */
  signal?: AbortSignal;
  /** Called once, at the first refusal, before waiting: the refusal says who holds the lock. @default none */
  onWait?: (refusal: LockedError) => void;
}

/**
 * First pause between tries, and the longest. Why these: a holder that finishes deletes its lock
 * at once, so a short first pause catches a run that was just ending; doubling keeps a long wait
 * from hammering the database; 15 s (under two heartbeat intervals) is the most a waiting cron
 * line lags behind the lock coming free, small against the minutes `--wait-for-lock` is given.
 */
export const LOCK_RETRY_FIRST_MS = 1_000;
export const LOCK_RETRY_MAX_MS = 15_000;

/**
 * `--wait-for-lock`: takes the run lock like acquireLock, but while another run holds it, tries
 * again with a doubling pause (on the store's clock) until `waitMs` has passed; then throws the
 * last refusal, saying how long it waited. A lock left by a dead or stale holder is broken by
 * acquireLock itself on one of the tries, as without waiting.
 */
export async function acquireLockWaiting(store: Store, options: LockWaitOptions): Promise<HeldLock> {
  const clock = store.clock;
  const deadline = clock.now() + (options.waitMs ?? 0);
  let pause = LOCK_RETRY_FIRST_MS;
  for (let tries = 1; ; tries++) {
    try {
      return await acquireLock(store, options);
    } catch (error) {
      if (!(error instanceof LockedError)) throw error;
      const left = deadline - clock.now();
      if (left <= 0) throw tries === 1 ? error : gaveUp(error, options.waitMs ?? 0, tries);
      if (tries === 1) options.onWait?.(error);
      const stopped = await clock.sleep(Math.min(pause, left), options.signal).then(
        () => false,
        () => true,
      );
      if (stopped) throw new LockedError(`${error.message}; stopped waiting for it (${tries} tries)`);
      pause = Math.min(pause * 2, LOCK_RETRY_MAX_MS);
    }
  }
}

function gaveUp(refusal: LockedError, waitMs: number, tries: number): LockedError {
  return new LockedError(`${refusal.message}; waited ${formatDuration(waitMs)} for it (--wait-for-lock, ${tries} tries)`);
}
