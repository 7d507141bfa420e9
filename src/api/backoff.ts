import type { Random } from '../util/random.js';

/** How often and how long the client waits between attempts. */
export interface RetryOptions {
  /**
   * Attempts in all, the first included.
   * @default 4
   */
  maxAttempts?: number;
  /**
   * First backoff ceiling; it doubles per attempt.
   * @default 500
   */
  baseDelayMs?: number;
  /**
   * Largest backoff ceiling.
   * @default 8000
   */
  maxDelayMs?: number;
  /**
   * Largest server-advised wait (Retry-After) honoured; a longer one is cut to this.
   * @default 60000
   */
  maxRetryAfterMs?: number;
  /**
   * Longest time one call may take, every attempt and wait included: no attempt runs past it
   * (its deadline is cut to what is left) and no wait that would end past it is begun; the
   * call then fails with its last error. A service refusing connections (nothing ever sent) is
   * given up on after the 4 attempts, within about 3.5 s of backoff plus the connect timeouts.
   * @default 120000
   */
  maxElapsedMs?: number;
}

export const RETRY_DEFAULTS: Required<RetryOptions> = {
  maxAttempts: 4,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
  maxElapsedMs: 120_000,
};

/**
 * The wait before attempt `attempt + 1`.
 * - A server-advised wait wins (the service knows its load better than we do, openai-node style),
 *   clamped so a hostile or broken header cannot park a run for hours.
 * - Otherwise exponential backoff with full jitter (AWS architecture blog): a uniformly random wait
 *   up to a doubling ceiling, so many clients that failed together do not retry together.
 */
export function retryDelayMs(
  attempt: number,
  retryAfterMs: number | undefined,
  options: Required<RetryOptions>,
  random: Random,
): number {
  if (retryAfterMs !== undefined) return Math.min(Math.max(0, retryAfterMs), options.maxRetryAfterMs);
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (attempt - 1));
  return Math.floor(random() * ceiling);
}

/**
 * Retry-After is either delay-seconds or an HTTP date (RFC 9110 §10.2.3). Returns milliseconds,
 * 0 for a date in the past, undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | string[] | undefined, nowMs: number): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  // An HTTP date names its day and month; anything else Date.parse might accept ("-3" → year -3) is not one.
  if (!/[a-z]{3}/i.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}
