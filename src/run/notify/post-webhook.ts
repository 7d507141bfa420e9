import { systemClock, type Clock } from '../../util/clock.js';
import { undici } from '../../util/lazy-undici.js';

/** How a notification POST is tried. */
export interface PostOptions {
  /** Per attempt, for the answer's headers and for its body. @default 10,000 ms */
  timeoutMs?: number;
  /** @default 3 */
  attempts?: number;
  /** Waits between attempts, and tells the time `until` is in. @default systemClock */
  clock?: Clock;
  /**
   * No attempt runs, and none is waited for, past this moment (the clock's milliseconds): each
   * attempt's timeout is cut to what is left, and a wait that would end past it ends the tries.
   * @default none: only `timeoutMs` and `attempts` bound the POST
   */
  until?: number;
}

/**
 * Why 3 attempts, 1 s then 2 s apart: a chat webhook that is down for longer than a few seconds
 * will not be back before the run's process ends, and a notification must never hold a cron
 * job for minutes. Why 10 s: Slack answers in well under a second when it answers at all.
 */
const DEFAULTS = { timeoutMs: 10_000, attempts: 3, firstBackoffMs: 1000 };

export interface PostResult {
  ok: boolean;
  attempts: number;
  /** The last answer's status; null when none came. */
  status: number | null;
  /** Why it failed, without the address (it may hold a secret); null on success. */
  error: string | null;
}

/**
 * POSTs `body` as JSON, trying again after a lost connection, a timeout, a 429 or a 5xx; any
 * other answer is final (a 4xx says the address or the body is wrong, and resending cannot help).
 * Never throws.
 */
export async function postJson(url: string, body: string, options: PostOptions = {}): Promise<PostResult> {
  const { timeoutMs, attempts, firstBackoffMs } = { ...DEFAULTS, ...options };
  const clock = options.clock ?? systemClock;
  const { request } = undici();
  const left = () => (options.until === undefined ? Infinity : options.until - clock.now());
  let last: PostResult = { ok: false, attempts: 0, status: null, error: 'not sent' };
  for (let attempt = 1; attempt <= attempts; attempt++) {
    if (attempt > 1) {
      const backoff = firstBackoffMs * 2 ** (attempt - 2);
      if (backoff >= left()) return { ...last, error: `${last.error ?? 'failed'}; no time left to try again before --max-wait ends` };
      await clock.sleep(backoff);
    }
    // Whole milliseconds, at least one: undici and AbortSignal.timeout take nothing less.
    const cut = Math.max(1, Math.floor(Math.min(timeoutMs, left())));
    try {
      const answer = await request(url, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json', 'user-agent': 'reelpipe-notify' },
        headersTimeout: cut,
        bodyTimeout: cut,
        signal: AbortSignal.timeout(Math.max(1, Math.floor(Math.min(timeoutMs * 2, left())))),
      });
      await answer.body.dump();
      const { statusCode: status } = answer;
      if (status < 300) return { ok: true, attempts: attempt, status, error: null };
      last = { ok: false, attempts: attempt, status, error: `answered ${status}` };
      if (status !== 429 && status < 500) return last;
    } catch (error) {
      last = { ok: false, attempts: attempt, status: null, error: withoutAddress((error as Error).message, url) };
    }
  }
  return last;
}

/** An error's message may quote the address; only its host may be shown. */
const withoutAddress = (message: string, url: string) => message.split(url).join(shownAddress(url));

/** `https://hooks.slack.com/…`: a webhook's path and query are its secret, never printed or stored. */
export function shownAddress(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}/…`;
  } catch {
    return '(not an address)';
  }
}
