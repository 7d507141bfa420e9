import type { Clock } from '../../util/clock.js';

/** How many recent answers the limiter weighs. */
const WINDOW = 20;

/**
 * How often the rate may grow while it starts slow. Why a quarter second, not a second: from 20
 * requests a second, a run needing 160 got there in 3 s — a tenth of a 1,000-job run spent held
 * back at the start; doubling each quarter second gets there in under 1 s, and a service with a
 * lower limit answers the overshoot with 429s that halve it at once.
 */
const SLOW_START_STEP_MS = 250;
/** How often it may grow once a 429 has cut it: the additive climb back is slow on purpose. */
const CLIMB_STEP_MS = 1000;

export interface RateLimiterOptions {
  /** Requests per second to start with. @default 20 */
  ratePerSecond?: number;
  /** The fastest it will ever go. @default 5000 */
  maxRatePerSecond?: number;
  /** The slowest it will go, however many 429s. @default 1 */
  minRatePerSecond?: number;
  /** Requests that may go at once from a full bucket (a wave of jobs finishing together). @default 64 */
  burst?: number;
  /** At most one cut per this many ms, however many 429s arrive together. @default 1000 */
  decreaseEveryMs?: number;
  /** Cut when at least this share of the recent answers were 429s. @default 0.5 */
  refusedShare?: number;
  clock: Clock;
}

/**
 * Paces the requests to one host — creations, reads and downloads alike — and finds the rate the
 * service accepts by itself. No rate limit is published, so the start is a conservative guess:
 *
 *   bucket     `burst` tokens, refilled at `rate` per second; a request takes one, or waits its
 *              turn (in call order) for the next. A full bucket lets a wave of jobs that finished
 *              together be submitted at once.
 *   grow       each span in which the bucket held callers back and no 429 came, the rate grows
 *              — doubling each quarter second (a slow start, as TCP's) until the first cut, then
 *              each second additively, by a tenth of the rate it was cut from (congestion
 *              avoidance): it climbs fast to what the run needs, and creeps back towards a limit it
 *              once hit.
 *   cut        when at least half of the last 20 answers were 429s (at most once a second: a burst
 *              of 429s is one signal), the rate halves and the latest Retry-After holds every
 *              request to the host until it has passed. A scattering of 429s is not a limit: each
 *              such request waits out its own Retry-After in the client, and the host goes on.
 */
export class AdaptiveRateLimiter {
  private rate: number;
  private readonly maxRate: number;
  /** The account's share of its rate for this run (account-rate.ts), under which it never grows; null: none. */
  private ceiling: number | null = null;
  private readonly minRate: number;
  private readonly burst: number;
  private readonly decreaseEveryMs: number;
  private readonly refusedShare: number;
  private readonly clock: Clock;
  /** Tokens in the bucket at `refilledAt`; negative while callers are queued for future tokens. */
  private tokens: number;
  private refilledAt: number;
  private pausedUntil = 0;
  /** The Retry-After of the latest 429 (ms), applied to the whole host at a cut. */
  private retryAfterMs = 0;
  private lastDecrease = -Infinity;
  /** The rate just before the last cut (null before any): additive growth steps by a tenth of it. */
  private cutFrom: number | null = null;
  /** The span being watched for growth: whether callers waited in it, whether a 429 came. */
  private span: { start: number; waited: boolean; refused: boolean };
  /** The last answers, newest last: true for a 429. */
  private recent: boolean[] = [];
  throttles = 0;

  constructor(options: RateLimiterOptions) {
    this.rate = options.ratePerSecond ?? 20;
    this.maxRate = Math.max(this.rate, options.maxRatePerSecond ?? 5000);
    this.minRate = Math.min(options.minRatePerSecond ?? 1, this.rate);
    this.burst = Math.max(1, options.burst ?? 64);
    this.decreaseEveryMs = options.decreaseEveryMs ?? 1000;
    this.refusedShare = options.refusedShare ?? 0.5;
    this.clock = options.clock;
    this.tokens = this.burst;
    this.refilledAt = this.clock.now();
    this.span = { start: this.refilledAt, waited: false, refused: false };
  }

  get currentRate(): number {
    return this.rate;
  }

  /**
   * The account's rate split between its live runs: this run's rate never passes `rate` (cut to
   * it at once, and grown no further); null lifts the ceiling.
   */
  capAt(rate: number | null): void {
    // Below the floor too: the account's rate shared by many runs may be less than 1 a second each.
    this.ceiling = rate === null ? null : Math.max(0.01, rate);
    if (this.ceiling !== null && this.rate > this.ceiling) {
      this.refill(this.clock.now());
      this.rate = this.ceiling;
    }
  }

  /** Holds every request for `ms` from now (a cooldown another run met, shared through the account). */
  pauseFor(ms: number): void {
    if (ms > 0) this.pausedUntil = Math.max(this.pausedUntil, this.clock.now() + ms);
  }

  /** Resolves when the caller may send its request; turns are handed out in call order. */
  async acquire(signal?: AbortSignal): Promise<void> {
    const now = this.clock.now();
    this.grow(now);
    this.refill(now);
    this.tokens -= 1;
    const wait = Math.max(this.pausedUntil - now, this.tokens < 0 ? (-this.tokens / this.rate) * 1000 : 0);
    if (wait <= 0) return;
    this.span.waited = true;
    await this.clock.sleep(wait, signal);
  }

  /** The service answered 429 (directly, or to one of the client's own retries); `retryAfterMs` if it said. */
  throttled(retryAfterMs?: number): void {
    this.throttles++;
    const now = this.clock.now();
    this.span.refused = true;
    if (retryAfterMs !== undefined) this.retryAfterMs = retryAfterMs;
    this.remember(true);
    const refused = this.recent.filter(Boolean).length;
    if (this.recent.length < WINDOW / 2 || refused < this.recent.length * this.refusedShare) return;
    if (now - this.lastDecrease < this.decreaseEveryMs) return;
    this.refill(now);
    this.lastDecrease = now;
    this.recent = [];
    this.cutFrom = this.rate;
    this.rate = Math.min(this.ceiling ?? Infinity, Math.max(this.minRate, this.rate / 2));
    if (this.retryAfterMs > 0) this.pausedUntil = Math.max(this.pausedUntil, now + this.retryAfterMs);
  }

  succeeded(): void {
    this.remember(false);
  }

  private refill(now: number): void {
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.refilledAt) / 1000) * this.rate);
    this.refilledAt = now;
  }

  /** Closes each span: if callers waited in it and no 429 came, the rate grows (see the class comment). */
  private grow(now: number): void {
    if (now - this.span.start < (this.cutFrom === null ? SLOW_START_STEP_MS : CLIMB_STEP_MS)) return;
    if (this.span.waited && !this.span.refused) {
      this.refill(now);
      const step = this.cutFrom === null ? this.rate : this.cutFrom / 10;
      this.rate = Math.min(this.maxRate, this.ceiling ?? Infinity, this.rate + step);
    }
    this.span = { start: now, waited: false, refused: false };
  }

  private remember(refused: boolean): void {
    this.recent.push(refused);
    if (this.recent.length > WINDOW) this.recent.shift();
  }
}

/**
 * One limiter per host: the service's (shared by creations, reads, and downloads from its own
 * host — the sandbox serves its files itself) and one more for each other host outputs come from
 * (a CDN), each finding its own rate.
 */
export class HostLimiters {
  private readonly others = new Map<string, AdaptiveRateLimiter>();

  constructor(
    readonly service: AdaptiveRateLimiter,
    private readonly serviceHost: string,
    private readonly make: () => AdaptiveRateLimiter,
  ) {}

  /** The limiter of `url`'s host. */
  for(url: string): AdaptiveRateLimiter {
    let host: string;
    try {
      host = new URL(url).host;
    } catch {
      return this.service;
    }
    if (host === this.serviceHost) return this.service;
    let limiter = this.others.get(host);
    if (!limiter) this.others.set(host, (limiter = this.make()));
    return limiter;
  }
}

/**
 * A host's limiter for a run: starting at the run's rate, with a bucket of twice its concurrency
 * (a wave of finished jobs is replaced at once, reads beside).
 */
export function limiterFor(options: { ratePerSecond: number; concurrency: number }, clock: Clock): AdaptiveRateLimiter {
  return new AdaptiveRateLimiter({ ratePerSecond: options.ratePerSecond, burst: Math.max(16, 2 * options.concurrency), clock });
}
