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
 * A member of a run several processes share (run/members.ts) is fenced the same way by its own
 * lock (`lock`, not the manifest's name): another member breaking it takes its jobs over.
 *
 *   none ──takeLock(name) / join──▶ fenced(manifest → lock, token) ──releaseLock / leave──▶ none
 *   (a lost lock stays fenced: every write of that manifest is refused from then on)
 */
export class LockFence {
  private readonly held = new Map<string, Fence>();

  took(manifest: string, token: string, lock = manifest): void {
    this.held.set(manifest, { lock, token });
  }

  released(lock: string): void {
    for (const [manifest, fence] of this.held) if (fence.lock === lock) this.held.delete(manifest);
  }

  /** The lock and token a write of `manifest`'s jobs must still find; null: not fenced (no lock taken). */
  fenceFor(manifest: string | null): Fence | null {
    return manifest === null ? null : (this.held.get(manifest) ?? null);
  }

  /** The token a write of `manifest`'s jobs must still find on its lock; null: not fenced (no lock taken). */
  tokenFor(manifest: string | null): string | null {
    return this.fenceFor(manifest)?.token ?? null;
  }
}

/** The lock a store's writes of a manifest are fenced by, and the token it must still hold. */
export interface Fence {
  lock: string;
  token: string;
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
