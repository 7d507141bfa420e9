import { LockedError } from '../../errors.js';

/**
 * Writes fenced by the run lock (after Temporal's range_id, ../shared/design/scale-out.md): a store
 * that took a manifest's lock writes that manifest's jobs only while the lock is still its own —
 * checked inside each write's own transaction, with the lock's row held against a breaker until
 * the write commits. Why: a run paused past its heartbeat (SIGSTOP, a VM frozen, a partition) has
 * its lock broken by the next run; until its next heartbeat tells it so, it could still write —
 * an intent, then a POST — beside the run that took over. Fenced, its first write after the
 * break fails with LockLostError, so it can neither record nor send anything more.
 *
 *   none ──takeLock(name)──▶ fenced(name, token) ──releaseLock──▶ none
 *   (a lost lock stays fenced: every write of that manifest is refused from then on)
 */
export class LockFence {
  private readonly tokens = new Map<string, string>();

  took(name: string, token: string): void {
    this.tokens.set(name, token);
  }

  released(name: string): void {
    this.tokens.delete(name);
  }

  /** The token a write of `manifest`'s jobs must still find on its lock; null: not fenced (no lock taken). */
  tokenFor(manifest: string | null): string | null {
    return manifest === null ? null : (this.tokens.get(manifest) ?? null);
  }
}

/** A write refused because the run lock it was fenced by is no longer this store's (exit 75, as a lost lock). */
export class LockLostError extends LockedError {
  constructor(readonly lock: string) {
    super(`the lock on ${lock} is no longer this run's (another run broke it, taking over its jobs): nothing more is written or sent by this run`);
  }
}

/** Checks a fenced write: `found` is the token the lock row holds now (null: no row). */
export function assertFence(name: string | null, expected: string | null, found: string | null | undefined): void {
  if (expected !== null && found !== expected) throw new LockLostError(name ?? '');
}
