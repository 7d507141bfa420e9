import {
  ApiBadRequestError,
  ApiConnectionError,
  ApiForbiddenError,
  ApiInDoubtError,
  ApiRateLimitError,
  ApiServerError,
  ApiStatusError,
  ApiUnauthorizedError,
} from '../../api/index.js';
import { InsufficientCreditsError, InvalidInputError } from '../../errors.js';

/** What a failed creating request means for the job and for the run. */
export type SubmitVerdict =
  /** The service refused this job's input: it fails alone, with the service's message. */
  | { kind: 'rejected'; message: string }
  /** Nothing was created and the whole account is refused: stop submitting. */
  | { kind: 'account'; reason: 'credits' | 'auth'; message: string }
  /** Nothing was created; try this job again later in the run. */
  | { kind: 'not-created'; message: string; rateLimited?: boolean }
  /** It may have created a job: reconcile, never resend blindly. */
  | { kind: 'in-doubt'; message: string };

/**
 * Sorts a creating request's error, one rule each, most specific first. Why the default is
 * in-doubt: an error we cannot place came after the intent was committed and the request may
 * have left; assuming "nothing created" is the one mistake that can pay twice.
 */
export function judgeSubmitError(error: unknown): SubmitVerdict {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof ApiInDoubtError) return { kind: 'in-doubt', message };
  // Insufficient credits is account-level (behaviour notes: "stop submitting"); a 4xx charges nothing.
  if (error instanceof InsufficientCreditsError) return { kind: 'account', reason: 'credits', message };
  // A rejected key is fatal for the run and never retried (behaviour notes: 401 and 403 alike).
  if (error instanceof ApiUnauthorizedError || error instanceof ApiForbiddenError) return { kind: 'account', reason: 'auth', message };
  // 429 after the client's own retries: the service turned it away before doing anything.
  if (error instanceof ApiRateLimitError) {
    return { kind: 'not-created', message, rateLimited: true };
  }
  // The client throws a 5xx for a creating POST only for 503 + Retry-After: "not processed".
  if (error instanceof ApiServerError) return { kind: 'not-created', message };
  if (error instanceof ApiConnectionError && !error.sent) return { kind: 'not-created', message };
  // 400 and other 4xx (an unknown id in the path): the service understood and refused this job.
  if (error instanceof ApiBadRequestError || (error instanceof ApiStatusError && error.status < 500)) {
    return { kind: 'rejected', message };
  }
  // Our own check of the resolved body (an upstream result lacked a field): never sent.
  if (error instanceof InvalidInputError) return { kind: 'rejected', message };
  return { kind: 'in-doubt', message };
}
