import type { Dispatcher } from 'undici';
import { InsufficientCreditsError } from '../errors.js';
import { redactSecrets, type Logger } from '../util/logger.js';
import type { Random } from '../util/random.js';
import { retryDelayMs, type RetryOptions } from './backoff.js';
import { ApiAbortedError, ApiInDoubtError, ApiInvalidResponseError, ApiStatusError, type ApiError } from './errors.js';
import type { OperationSpec } from './operations.js';
import { parseResponse } from './parse-response.js';
import { redactAnswer, redactDeep } from './redact-error.js';
import { judgeFailure, type Verdict } from './retry-policy.js';
import { sendOnce, type AttemptResult, type PreparedRequest } from './transport.js';

export interface SendContext {
  dispatcher: Dispatcher;
  /** The pool creating requests go through (a pool of their own: see ClientOptions.creatingConnections). */
  creatingDispatcher: Dispatcher;
  logger: Logger;
  retry: Required<RetryOptions>;
  /** Waits between attempts; rejects when the signal aborts. */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  random: Random;
  now: () => number;
  secrets: readonly string[];
  /** Overall deadline of one attempt. */
  attemptMs: number;
  maxResponseBytes: number;
}

/** One call's own settings: its abort signal, the fields its log lines carry (CallOptions.log), and its check before each creating attempt (CallOptions.beforeCreating). */
export interface SendCall {
  signal?: AbortSignal | undefined;
  log?: Readonly<Record<string, unknown>> | undefined;
  beforeCreating?: (() => void) | undefined;
}

/**
 * Sends a prepared request until it succeeds, the retry policy says stop, the call's time is
 * spent, or the caller aborts:
 *
 *   attempt ─ 2xx ──────────────────────────────▶ parse the answer ▶ result
 *      │    ├ aborted by the caller ─▶ throw: ApiInDoubtError for a creating POST that may have
 *      │    │                          left, otherwise ApiAbortedError (sent or not)
 *      │    └ failure ─▶ judgeFailure(effect, failure)
 *      │                   ├ retry (attempts and time left) ─▶ wait (Retry-After or jittered
 *      │                   │     backoff; an abort ends the wait: ApiAbortedError, not sent) ─▶ attempt
 *      │                   ├ retry (none left) / fail ─▶ throw the attempt's error
 *      │                   └ in-doubt ─▶ throw ApiInDoubtError (a creating POST, never resent)
 *      └ a DELETE answered 404 after an earlier attempt may have arrived ▶ done (already deleted)
 *
 * Why a time budget besides the attempt count (retry.maxElapsedMs): every call ends within it
 * whatever the network does — an attempt's deadline is cut to what is left, and a wait that would
 * end past it is not begun — so a caller can bound how long any call holds a run.
 */
export async function runWithRetries(ctx: SendContext, spec: OperationSpec, request: PreparedRequest, call: SendCall = {}): Promise<unknown> {
  const { signal, log } = call;
  let mayHaveArrived = false;
  const callStarted = ctx.now();
  for (let attempt = 1; ; attempt++) {
    if (signal?.aborted) throw new ApiAbortedError(request.operation, false, signal.reason);
    // The caller's last word before a creating request is written (the first, or a retry of one
    // that provably created nothing): a refusal leaves it unsent.
    if (spec.effect === 'creates' && call.beforeCreating) {
      try {
        call.beforeCreating();
      } catch (error) {
        throw new ApiAbortedError(request.operation, false, error);
      }
    }
    const started = ctx.now();
    const deadlineMs = Math.min(ctx.attemptMs, ctx.retry.maxElapsedMs - (started - callStarted));
    const result = await sendOnce(spec.effect === 'creates' ? ctx.creatingDispatcher : ctx.dispatcher, request, {
      deadlineMs, maxResponseBytes: ctx.maxResponseBytes, signal, now: ctx.now, clean: (value) => redactDeep(value, ctx.secrets),
    });
    logAttempt(ctx, request, result, attempt, ctx.now() - started, log);
    if (result.ok) return parseAnswer(ctx, spec, request, result.text);
    if (alreadyDeleted(spec, result, mayHaveArrived)) return undefined;
    mayHaveArrived ||= result.failure.kind === 'status' || result.failure.sent;

    const verdict = result.error instanceof ApiAbortedError
      ? abortedVerdict(spec, result.error)
      : judgeFailure({ effect: spec.effect, failure: result.failure });
    if (verdict.action === 'in-doubt') {
      ctx.logger.warn({ ...log, op: request.operation, attempt, reason: verdict.reason }, 'request in doubt: not resent');
      throw new ApiInDoubtError(request.operation, `${verdict.reason}: ${withoutOperation(result.error)}`, result.error);
    }
    if (verdict.action === 'fail' || attempt >= ctx.retry.maxAttempts) throw finalError(result.error);
    const waitMs = retryDelayMs(attempt, verdict.retryAfterMs, ctx.retry, ctx.random);
    if (ctx.now() - callStarted + waitMs >= ctx.retry.maxElapsedMs) {
      ctx.logger.debug({ ...log, op: request.operation, attempt, waitMs }, 'retry time spent: giving up');
      throw finalError(result.error);
    }
    ctx.logger.debug({ ...log, op: request.operation, attempt, waitMs, reason: verdict.reason }, 'retrying');
    await ctx.sleep(waitMs, signal).catch((error: unknown) => {
      // Between attempts nothing is on the wire: an abort here leaves the request unsent.
      throw signal?.aborted ? new ApiAbortedError(request.operation, false, signal.reason) : error;
    });
  }
}

/**
 * Why: an aborted call is never retried (the caller is stopping); a creating POST that may have
 * left before the abort may have made a job, like any other lost answer.
 */
function abortedVerdict(spec: OperationSpec, error: ApiAbortedError): Verdict {
  if (spec.effect === 'creates' && error.sent) return { action: 'in-doubt', reason: 'aborted after the request was sent' };
  return { action: 'fail', reason: 'aborted by the caller' };
}

/** A creating POST answered 2xx made a job even when its answer is unreadable: that is in doubt. */
function parseAnswer(ctx: SendContext, spec: OperationSpec, request: PreparedRequest, text: string): unknown {
  try {
    return parseResponse(request.operation, spec, text, (value) => redactAnswer(text, value, ctx.secrets));
  } catch (error) {
    if (spec.effect === 'creates' && error instanceof ApiInvalidResponseError) {
      throw new ApiInDoubtError(request.operation, `created, but ${withoutOperation(error)}`, error);
    }
    throw error;
  }
}

/**
 * Why: the service has no idempotency, so when a first DELETE may have been carried out and its
 * answer was lost, the retry finds nothing. That 404 means the goal is reached, not an error.
 */
function alreadyDeleted(spec: OperationSpec, result: AttemptResult, mayHaveArrived: boolean): boolean {
  return spec.effect === 'deletes' && mayHaveArrived && !result.ok && result.status === 404;
}

/**
 * Why: running out of credits is account-level (the behaviour notes: "stop submitting"), but its
 * status and body are not shown. A 402, or a 4xx whose text speaks of credits running short, is
 * taken as that signal, so the runner stops at once instead of failing job after job.
 */
const CREDIT_SHORTAGE = /credit/i;
const SHORTAGE_WORDS = /insufficient|not enough|no (more )?credits|out of|exceed|remaining|balance/i;

/** Whether the service's words say the account is short of credits (a refusal's, or a failed job's reason). */
export const speaksOfCreditShortage = (text: string): boolean => CREDIT_SHORTAGE.test(text) && SHORTAGE_WORDS.test(text);

function finalError(error: ApiError): Error {
  if (!(error instanceof ApiStatusError) || error.status < 400 || error.status >= 500) return error;
  const text = withoutOperation(error);
  const shortage = error.status === 402 || speaksOfCreditShortage(text);
  return shortage ? new InsufficientCreditsError(error.message, { cause: error }) : error;
}

function withoutOperation(error: ApiError): string {
  const prefix = `${error.operation}: `;
  return error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
}

function logAttempt(ctx: SendContext, request: PreparedRequest, result: AttemptResult, attempt: number, durationMs: number, log: SendCall['log']): void {
  if (!ctx.logger.isLevelEnabled('debug')) return;
  const line = {
    ...log,
    op: request.operation,
    method: request.method,
    path: request.path,
    status: result.status,
    attempt,
    durationMs,
    ...(result.ok ? {} : { error: redactSecrets(result.error.message, ctx.secrets) }),
  };
  ctx.logger.debug(line, 'request');
}
