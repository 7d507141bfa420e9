/**
 * When a failed request may be sent again, as small named rules, each with its reason. The first
 * rule that has an opinion decides. Modelled on stripe-node's `_shouldRetry`, with one addition
 * this service forces on us: it has no idempotency keys, so every accepted creating POST makes a
 * new job and may spend credits. A creating POST is therefore resent only when it provably created
 * nothing; when it may have reached the service and no usable answer came back, it is "in doubt"
 * and left for the runner to reconcile (find the job, or decide it does not exist).
 */

/** What an operation does to the service, which decides whether resending it is safe. */
export type Effect =
  /** GET: no side effects. */
  | 'reads'
  /** PUT: replaces a resource with the same content each time. */
  | 'replaces'
  /** DELETE: the second delete finds nothing left to delete. */
  | 'deletes'
  /** POST that makes a new job (and may spend credits) every time it is accepted. */
  | 'creates';

/** How one attempt failed. */
export type AttemptFailure =
  | { kind: 'status'; status: number; retryAfterMs: number | undefined }
  /** No usable answer. `sent`: whether the request may have left this process. */
  | { kind: 'no-response'; sent: boolean };

export type Verdict =
  | { action: 'retry'; reason: string; retryAfterMs?: number }
  | { action: 'fail'; reason: string }
  | { action: 'in-doubt'; reason: string };

export interface RetryRuleInput {
  effect: Effect;
  failure: AttemptFailure;
}
export type RetryRule = (input: RetryRuleInput) => Verdict | undefined;

const status = (f: AttemptFailure) => (f.kind === 'status' ? f.status : undefined);

/**
 * The rules, in order. Each carries the reason it exists.
 */
export const RETRY_RULES: Readonly<Record<string, RetryRule>> = {
  /**
   * 4xx other than 429: the service understood the request and refused it (bad field, bad key,
   * unknown id). Sending it again gets the same answer; a bad key (401/403) is fatal for the run.
   */
  clientErrorsAreFinal: ({ failure }) => {
    const s = status(failure);
    return s !== undefined && s < 500 && s !== 429 ? { action: 'fail', reason: `HTTP ${s} is final` } : undefined;
  },

  /**
   * Refused connection, failed DNS lookup or connect timeout: no byte of the request left this
   * process, so not even a creating POST can have made a job.
   */
  neverSentIsSafeToResend: ({ failure }) =>
    failure.kind === 'no-response' && !failure.sent
      ? { action: 'retry', reason: 'the request was never sent' }
      : undefined,

  /**
   * 429: the service turned the request away before doing anything, so it is safe for a creating
   * POST too. Its Retry-After, when given, is honoured (clamped by the backoff).
   */
  rateLimitedIsSafeToResend: ({ failure }) =>
    failure.kind === 'status' && failure.status === 429
      ? { action: 'retry', reason: 'rate limited (429)', retryAfterMs: failure.retryAfterMs }
      : undefined,

  /**
   * 503 with Retry-After is the HTTP way of saying "not processed, come back later": a service
   * that is shedding load names a time. A bare 503 may come from a proxy after the application
   * took the request, so for a POST only the advised form counts as "nothing created".
   */
  unavailableWithRetryAfterIsSafeToResend: ({ failure }) =>
    failure.kind === 'status' && failure.status === 503 && failure.retryAfterMs !== undefined
      ? { action: 'retry', reason: 'service unavailable (503) with Retry-After', retryAfterMs: failure.retryAfterMs }
      : undefined,

  /**
   * Anything else after a creating POST may have reached the service (reset, header or body
   * timeout, 500, 502, 504, bare 503): it may have made a job. Resending could pay twice.
   */
  createMayHaveArrived: ({ effect, failure }) =>
    effect === 'creates'
      ? { action: 'in-doubt', reason: failure.kind === 'status' ? `HTTP ${failure.status} after the request was sent` : 'no answer after the request was sent' }
      : undefined,

  /**
   * Reads, replacing PUTs and DELETEs can be repeated without changing the outcome, so every
   * transient failure (connection trouble, timeouts, 5xx) is worth another try.
   */
  repeatableRequestsRetryTransientFailures: ({ failure }) =>
    failure.kind === 'no-response' || failure.status >= 500
      ? { action: 'retry', reason: failure.kind === 'status' ? `HTTP ${failure.status}` : 'no answer' }
      : undefined,
};

/** Applies the rules in order; a failure no rule claims is final. */
export function judgeFailure(input: RetryRuleInput): Verdict {
  for (const rule of Object.values(RETRY_RULES)) {
    const verdict = rule(input);
    if (verdict) return verdict;
  }
  return { action: 'fail', reason: 'no rule allows a retry' };
}
