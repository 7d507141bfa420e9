import type { Pool } from 'undici';
import { InsufficientCreditsError } from '../errors.js';
import { redactSecrets, type Logger } from '../util/logger.js';
import type { Random } from '../util/random.js';
import { retryDelayMs, type RetryOptions } from './backoff.js';
import { ApiInDoubtError, ApiInvalidResponseError, ApiStatusError, type ApiError } from './errors.js';
import type { OperationSpec } from './operations.js';
import { parseResponse } from './parse-response.js';
import { judgeFailure } from './retry-policy.js';
import { sendOnce, type AttemptResult, type PreparedRequest } from './transport.js';

export interface SendContext {
  pool: Pool;
  logger: Logger;
  retry: Required<RetryOptions>;
  sleep: (ms: number) => Promise<void>;
  random: Random;
  now: () => number;
  secrets: readonly string[];
}

/**
 * Sends a prepared request until it succeeds or the retry policy says stop:
 *
 *   attempt ─ 2xx ──────────────────────────────▶ parse the answer ▶ result
 *      │    └ failure ─▶ judgeFailure(effect, failure)
 *      │                   ├ retry (attempts left) ─▶ wait (Retry-After or jittered backoff) ─▶ attempt
 *      │                   ├ retry (none left) / fail ─▶ throw the attempt's error
 *      │                   └ in-doubt ─▶ throw ApiInDoubtError (a creating POST, never resent)
 *      └ a DELETE answered 404 after an earlier attempt may have arrived ▶ done (already deleted)
 */
export async function runWithRetries(ctx: SendContext, spec: OperationSpec, request: PreparedRequest): Promise<unknown> {
  let mayHaveArrived = false;
  for (let attempt = 1; ; attempt++) {
    const started = ctx.now();
    const result = await sendOnce(ctx.pool, request, ctx.now, (text) => redactSecrets(text, ctx.secrets));
    logAttempt(ctx, request, result, attempt, ctx.now() - started);
    if (result.ok) return parseAnswer(spec, request, result.text);
    if (alreadyDeleted(spec, result, mayHaveArrived)) return undefined;
    mayHaveArrived ||= result.failure.kind === 'status' || result.failure.sent;

    const verdict = judgeFailure({ effect: spec.effect, failure: result.failure });
    if (verdict.action === 'in-doubt') {
      ctx.logger.warn({ op: request.operation, attempt, reason: verdict.reason }, 'request in doubt: not resent');
      throw new ApiInDoubtError(request.operation, `${verdict.reason}: ${withoutOperation(result.error)}`, result.error);
    }
    if (verdict.action === 'fail' || attempt >= ctx.retry.maxAttempts) throw finalError(result.error);
    const waitMs = retryDelayMs(attempt, verdict.retryAfterMs, ctx.retry, ctx.random);
    ctx.logger.debug({ op: request.operation, attempt, waitMs, reason: verdict.reason }, 'retrying');
    await ctx.sleep(waitMs);
  }
}

/** A creating POST answered 2xx made a job even when its answer is unreadable: that is in doubt. */
function parseAnswer(spec: OperationSpec, request: PreparedRequest, text: string): unknown {
  try {
    return parseResponse(request.operation, spec, text);
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

function finalError(error: ApiError): Error {
  if (!(error instanceof ApiStatusError) || error.status < 400 || error.status >= 500) return error;
  const text = withoutOperation(error);
  const shortage = error.status === 402 || (CREDIT_SHORTAGE.test(text) && SHORTAGE_WORDS.test(text));
  return shortage ? new InsufficientCreditsError(error.message, { cause: error }) : error;
}

function withoutOperation(error: ApiError): string {
  const prefix = `${error.operation}: `;
  return error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
}

function logAttempt(ctx: SendContext, request: PreparedRequest, result: AttemptResult, attempt: number, durationMs: number): void {
  if (!ctx.logger.isLevelEnabled('debug')) return;
  const line = {
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
