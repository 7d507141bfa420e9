import type { Clock } from '../util/clock.js';

/** How many recent answers the limiter weighs. */
const WINDOW = 20;

export interface RateLimiterOptions {
  /** Requests per second to start with and never exceed. @default 20 */
  ratePerSecond?: number;
  /** The slowest it will go, however many 429s. @default 1 */
  minRatePerSecond?: number;
  /** At most one slow-down per this many ms, however many 429s arrive together. @default 1000 */
  decreaseEveryMs?: number;
  /** Slow down when at least this share of the recent answers were 429s. @default 0.5 */
  refusedShare?: number;
  clock: Clock;
}

/**
 * Paces requests to the service, and slows down by itself when told to.
 *
 * Policy: the rate halves when at least half of the last 20 answers were 429s, and at most once
 * a second (a burst of 429s is one signal; TCP likewise reacts once per round trip). A scattering
 * of 429s is not a rate limit: each of those requests waits out its own Retry-After in the
 * client, and halving on every one would drive the rate to the floor under mere noise. Each
 * success wins back 5 %, so the rate climbs back within seconds once the service stops
 * refusing. No rate limit is published, so the start rate is a guess the 429s correct.
 */
export class AdaptiveRateLimiter {
  private rate: number;
  private readonly maxRate: number;
  private readonly minRate: number;
  private readonly decreaseEveryMs: number;
  private readonly clock: Clock;
  private nextAt = 0;
  private lastDecrease = -Infinity;
  private readonly refusedShare: number;
  /** The last answers, newest last: true for a 429. */
  private recent: boolean[] = [];
  throttles = 0;

  constructor(options: RateLimiterOptions) {
    this.maxRate = options.ratePerSecond ?? 20;
    this.minRate = Math.min(options.minRatePerSecond ?? 1, this.maxRate);
    this.decreaseEveryMs = options.decreaseEveryMs ?? 1000;
    this.refusedShare = options.refusedShare ?? 0.5;
    this.rate = this.maxRate;
    this.clock = options.clock;
  }

  get currentRate(): number {
    return this.rate;
  }

  /** Resolves when the caller may send its request; slots are handed out in call order. */
  async acquire(signal?: AbortSignal): Promise<void> {
    const now = this.clock.now();
    const slot = Math.max(now, this.nextAt);
    this.nextAt = slot + 1000 / this.rate;
    if (slot > now) await this.clock.sleep(slot - now, signal);
  }

  /** The service answered 429 (directly, or to one of the client's own retries). */
  throttled(): void {
    this.throttles++;
    this.remember(true);
    const now = this.clock.now();
    const refused = this.recent.filter(Boolean).length;
    if (this.recent.length < WINDOW / 2 || refused < this.recent.length * this.refusedShare) return;
    if (now - this.lastDecrease < this.decreaseEveryMs) return;
    this.lastDecrease = now;
    this.recent = [];
    this.rate = Math.max(this.minRate, this.rate / 2);
  }

  succeeded(): void {
    this.remember(false);
    this.rate = Math.min(this.maxRate, this.rate * 1.05);
  }

  private remember(refused: boolean): void {
    this.recent.push(refused);
    if (this.recent.length > WINDOW) this.recent.shift();
  }
}
