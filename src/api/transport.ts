import type { Dispatcher } from 'undici';
import { parseRetryAfter } from './backoff.js';
import {
  ApiAbortedError, ApiConnectionError, ApiResponseTooLargeError, ApiStatusError, ApiTimeoutError, type ApiError,
  type TimeoutPhase,
} from './errors.js';
import { whenStarted } from './pool.js';
import { BodyTooLargeError, readCapped } from './read-body.js';
import type { AttemptFailure } from './retry-policy.js';


/** A request built once and sent unchanged on every attempt. */
export interface PreparedRequest {
  readonly operation: string;
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Path with the base path prefix and query string. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | undefined;
}

/** What one attempt may take, and what it runs under. */
export interface AttemptLimits {
  /** The attempt's overall deadline: headers and body together. */
  deadlineMs: number;
  /** Longest answer read; a longer one is dropped unread (see readCapped). */
  maxResponseBytes: number;
  /** The caller's cancellation. */
  signal: AbortSignal | undefined;
  now: () => number;
  /** Scrubs the credentials out of every string of a parsed error body (services echo what they get). */
  clean: (value: unknown) => unknown;
}

export type AttemptResult =
  | { ok: true; status: number; text: string }
  | { ok: false; status?: number; failure: AttemptFailure; error: ApiError };

/** The deadline's abort reason, told apart from the caller's. */
class AttemptDeadline extends Error {}

/**
 * Sends one attempt and classifies its outcome; never throws. `sent` (may the request have left
 * this process?) is known for certain: it is false until the pool starts writing the request on a
 * socket, whatever then goes wrong (see pool.ts).
 */
export async function sendOnce(dispatcher: Dispatcher, request: PreparedRequest, limits: AttemptLimits): Promise<AttemptResult> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new AttemptDeadline(`no complete answer within ${limits.deadlineMs} ms`)), limits.deadlineMs);
  const signal = limits.signal ? AbortSignal.any([limits.signal, deadline.signal]) : deadline.signal;
  const options = { method: request.method, path: request.path, headers: request.headers, body: request.body, signal };
  let started = false;
  // An abort seen when the write begins stops it unwritten (undici checks the signal there too).
  whenStarted(options, () => (started ||= !signal.aborted));
  let status: number | undefined;
  try {
    const response = await untilAborted(dispatcher.request(options), signal);
    status = response.statusCode;
    const text = await readCapped(response.body, response.headers, limits.maxResponseBytes);
    if (status >= 200 && status < 300) return { ok: true, status, text };
    const retryAfterMs = parseRetryAfter(response.headers['retry-after'], limits.now());
    const retryAfterSeconds = retryAfterMs === undefined ? undefined : retryAfterMs / 1000;
    return {
      ok: false,
      status,
      failure: { kind: 'status', status, retryAfterMs },
      error: ApiStatusError.from(request.operation, status, limits.clean(parseBody(text)), retryAfterSeconds),
    };
  } catch (cause) {
    // Failing after the status line arrived means the service answered: the request was sent.
    const sent = status !== undefined || started;
    const error = attemptError(request.operation, cause, sent, status, limits.signal);
    return { ok: false, status, failure: { kind: 'no-response', sent }, error };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Rejects as soon as `signal` aborts. Why not leave it to undici: a request queued behind busy
 * sockets only notices the abort once a socket frees up; the caller must not wait for that.
 * The request itself still stops unwritten when its turn comes.
 */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(signal.reason as Error);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** JSON when it parses, the raw text otherwise (a proxy's HTML error page), null when empty. */
export function parseBody(text: string): unknown {
  if (text.trim() === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function errorCodes(error: unknown): string[] {
  if (error === null || typeof error !== 'object') return [];
  const own = (error as { code?: unknown }).code;
  // Happy-eyeballs connects fail with an AggregateError of one error per address.
  const nested = (error as { errors?: unknown }).errors;
  return [...(typeof own === 'string' ? [own] : []), ...(Array.isArray(nested) ? nested.flatMap(errorCodes) : [])];
}

const TIMEOUT_PHASES: Record<string, TimeoutPhase> = {
  UND_ERR_CONNECT_TIMEOUT: 'connect',
  UND_ERR_HEADERS_TIMEOUT: 'headers',
  UND_ERR_BODY_TIMEOUT: 'body',
};

function attemptError(operation: string, cause: unknown, sent: boolean, status: number | undefined, caller: AbortSignal | undefined): ApiError {
  if (caller?.aborted) return new ApiAbortedError(operation, sent, caller.reason);
  if (cause instanceof BodyTooLargeError) return new ApiResponseTooLargeError(operation, status ?? 0, cause.message);
  const codes = errorCodes(cause);
  const detail = cause instanceof Error ? cause.message : String(cause);
  const phase = cause instanceof AttemptDeadline ? 'attempt' : codes.map((code) => TIMEOUT_PHASES[code]).find((p) => p !== undefined);
  const code = codes[0] ? ` (${codes[0]})` : '';
  if (phase) return new ApiTimeoutError(operation, `${phase} timeout: ${detail}${code}`, cause, phase);
  return new ApiConnectionError(operation, `${sent ? 'connection failed' : 'could not connect'}: ${detail}${code}`, sent, cause);
}
