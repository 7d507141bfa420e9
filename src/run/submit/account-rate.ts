import type { Store } from '../../state/index.js';
import type { Clock } from '../../util/clock.js';
import type { AdaptiveRateLimiter } from './rate-limiter.js';

/** How often a run reads the account's rate, its live runs and the shared cooldown. */
const TICK_MS = 1_000;
/** A 429 without Retry-After holds the other runs this long. */
const DEFAULT_COOLDOWN_MS = 1_000;

/**
 * The account's rate, shared by the runs on one state (`account set --rate R`): each run keeps its
 * adaptive limiter (rate-limiter.ts), capped at R ÷ the live runs (lock holders with a fresh
 * heartbeat), re-read every second. A 429 one run meets sets a cooldown on the account (the
 * database's clock: its Retry-After, or a second) that every run honours at its next tick: one
 * run's refusal slows them all, as the service sees them all as one account. Started only when
 * the account has a rate as the run starts; a read that fails leaves the limiter as it is (the
 * state's faults are the run's to meet on its own writes).
 */
export class AccountRate {
  private stopped = false;
  private sharedUntil = 0;
  private readonly loop: Promise<void>;
  /** Ends the tick's wait at once when the run ends (or halts). */
  private readonly ended = new AbortController();
  private readonly signal: AbortSignal;

  private constructor(
    private readonly store: Store,
    private readonly limiter: AdaptiveRateLimiter,
    private readonly clock: Clock,
    signal: AbortSignal,
  ) {
    this.signal = AbortSignal.any([signal, this.ended.signal]);
    this.loop = this.tick();
  }

  /** Shares the account's rate with this run's limiter, or null when the account sets none. */
  static async start(store: Store, limiter: AdaptiveRateLimiter, clock: Clock, signal: AbortSignal): Promise<AccountRate | null> {
    const first = await store.sharedRate();
    if (first.rate === null) return null;
    return new AccountRate(store, limiter, clock, signal);
  }

  /** This run met a 429: the other runs hold too (at most one write per cooldown it extends). */
  throttled(retryAfterMs: number | undefined): void {
    const ms = retryAfterMs ?? DEFAULT_COOLDOWN_MS;
    const until = this.clock.now() + ms;
    if (this.stopped || until <= this.sharedUntil) return;
    this.sharedUntil = until;
    this.store.shareCooldown(ms).catch(() => undefined);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.ended.abort();
    await this.loop;
  }

  private async tick(): Promise<void> {
    while (!this.stopped && !this.signal.aborted) {
      try {
        const shared = await this.store.sharedRate();
        this.limiter.capAt(shared.rate === null ? null : shared.rate / Math.max(1, shared.live));
        this.limiter.pauseFor(shared.cooldownMs);
      } catch {
        // The state unreachable for a moment: the limiter keeps its last share.
      }
      await this.clock.sleep(TICK_MS, this.signal).catch(() => undefined);
    }
  }
}
