import type { Clock } from '../util/clock.js';

export interface RateLimiterOptions {
  /** Requests per second to start with and never exceed. @default 20 */
  ratePerSecond?: number;
  /** The slowest it will go, however many 429s. @default 0.5 */
  minRatePerSecond?: number;
  clock: Clock;
}

/**
 * Paces requests to the service, and slows down by itself when told to.
 *
 * Policy (additive increase, multiplicative decrease, as TCP does): each 429 halves the rate and
 * pauses everyone for the Retry-After the service gave; each success wins back a twentieth of a
 * request per second, so the rate creeps back up once the service stops complaining. No rate
 * limit is published, so the start rate is a guess that the first 429 corrects.
 */
export class AdaptiveRateLimiter {
  private rate: number;
  private readonly maxRate: number;
  private readonly minRate: number;
  private readonly clock: Clock;
  private nextAt = 0;
  private pausedUntil = 0;
  throttles = 0;

  constructor(options: RateLimiterOptions) {
    this.maxRate = options.ratePerSecond ?? 20;
    this.minRate = Math.min(options.minRatePerSecond ?? 0.5, this.maxRate);
    this.rate = this.maxRate;
    this.clock = options.clock;
  }

  get currentRate(): number {
    return this.rate;
  }

  /** Resolves when the caller may send its request; slots are handed out in call order. */
  async acquire(signal?: AbortSignal): Promise<void> {
    const now = this.clock.now();
    const slot = Math.max(now, this.nextAt, this.pausedUntil);
    this.nextAt = slot + 1000 / this.rate;
    if (slot > now) await this.clock.sleep(slot - now, signal);
  }

  /** The service answered 429 (or the client retried one). */
  throttled(retryAfterMs = 1000): void {
    this.throttles++;
    this.rate = Math.max(this.minRate, this.rate / 2);
    this.pausedUntil = Math.max(this.pausedUntil, this.clock.now() + retryAfterMs);
  }

  succeeded(): void {
    this.rate = Math.min(this.maxRate, this.rate + 0.05);
  }
}
