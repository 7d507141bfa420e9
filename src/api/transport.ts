import { Pool } from 'undici';
import { ApiConnectionError, ApiStatusError, ApiTimeoutError, type ApiError, type TimeoutPhase } from './errors.js';
import { parseRetryAfter } from './backoff.js';
import type { AttemptFailure } from './retry-policy.js';

/** Socket-level limits of the client. */
export interface Timeouts {
  /**
   * Establishing a connection (TCP and TLS).
   * @default 10000
   */
  connectMs?: number;
  /**
   * From sending the request to receiving the response headers.
   * @default 30000
   */
  headersMs?: number;
  /**
   * Longest silence while reading a response body.
   * @default 30000
   */
  bodyMs?: number;
}

export const TIMEOUT_DEFAULTS: Required<Timeouts> = { connectMs: 10_000, headersMs: 30_000, bodyMs: 30_000 };

/**
 * A keep-alive pool to the service's one origin. Idle sockets are kept a little while so a poll
 * loop reuses them; undici shortens this to the server's own Keep-Alive hint, which avoids reusing
 * a socket the server is about to close (a POST on such a socket would come back in doubt).
 */
export function createPool(origin: string, timeouts: Required<Timeouts>, connections: number): Pool {
  return new Pool(origin, {
    connections,
    keepAliveTimeout: 4_000,
    connect: { timeout: timeouts.connectMs },
    headersTimeout: timeouts.headersMs,
    bodyTimeout: timeouts.bodyMs,
  });
}

/** A request built once and sent unchanged on every attempt. */
export interface PreparedRequest {
  readonly operation: string;
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Path with the base path prefix and query string. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | undefined;
}

export type AttemptResult =
  | { ok: true; status: number; text: string }
  | { ok: false; status?: number; failure: AttemptFailure; error: ApiError };

/**
 * Sends one attempt and classifies its outcome; never throws. `redact` cleans an error body before
 * it is kept on an error (a service may echo what it was sent).
 */
export async function sendOnce(
  pool: Pool,
  request: PreparedRequest,
  now: () => number,
  redact: (text: string) => string,
): Promise<AttemptResult> {
  let status: number | undefined;
  try {
    const response = await pool.request({
      method: request.method,
      path: request.path,
      headers: request.headers,
      body: request.body,
    });
    status = response.statusCode;
    const text = await response.body.text();
    if (status >= 200 && status < 300) return { ok: true, status, text };
    const retryAfterMs = parseRetryAfter(response.headers['retry-after'], now());
    const retryAfterSeconds = retryAfterMs === undefined ? undefined : retryAfterMs / 1000;
    return {
      ok: false,
      status,
      failure: { kind: 'status', status, retryAfterMs },
      error: ApiStatusError.from(request.operation, status, parseBody(redact(text)), retryAfterSeconds),
    };
  } catch (cause) {
    // Failing after the status line arrived means the service answered: the request was sent.
    const sent = status !== undefined || wasSent(cause);
    return { ok: false, status, failure: { kind: 'no-response', sent }, error: noResponseError(request.operation, cause, sent) };
  }
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

/**
 * Errors raised before any byte of the request can have been written: the connection was never
 * made (refused, unknown host, connect timeout) or our own pool was already shut. Anything else
 * (reset, "other side closed", header or body timeout) may come after the service read the request.
 */
const NEVER_SENT_CODES = new Set([
  'ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_CLOSED', 'UND_ERR_DESTROYED',
]);

function errorCodes(error: unknown): string[] {
  if (error === null || typeof error !== 'object') return [];
  const own = (error as { code?: unknown }).code;
  // Happy-eyeballs connects fail with an AggregateError of one error per address.
  const nested = (error as { errors?: unknown }).errors;
  return [...(typeof own === 'string' ? [own] : []), ...(Array.isArray(nested) ? nested.flatMap(errorCodes) : [])];
}

function wasSent(error: unknown): boolean {
  const codes = errorCodes(error);
  return codes.length === 0 || !codes.every((code) => NEVER_SENT_CODES.has(code));
}

const TIMEOUT_PHASES: Record<string, TimeoutPhase> = {
  UND_ERR_CONNECT_TIMEOUT: 'connect',
  UND_ERR_HEADERS_TIMEOUT: 'headers',
  UND_ERR_BODY_TIMEOUT: 'body',
};

function noResponseError(operation: string, cause: unknown, sent: boolean): ApiError {
  const codes = errorCodes(cause);
  const phase = codes.map((code) => TIMEOUT_PHASES[code]).find((p) => p !== undefined);
  const detail = cause instanceof Error ? cause.message : String(cause);
  const code = codes[0] ? ` (${codes[0]})` : '';
  if (phase) return new ApiTimeoutError(operation, `${phase} timeout: ${detail}${code}`, cause, phase);
  return new ApiConnectionError(operation, `${sent ? 'connection failed' : 'could not connect'}: ${detail}${code}`, sent, cause);
}
