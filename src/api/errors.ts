import { ReelpipeError, type ErrorCode } from '../errors.js';

/**
 * Errors of the service client. Two families:
 * - ApiStatusError and its subclasses: the service answered with an error status.
 * - ApiConnectionError, ApiTimeoutError, ApiInDoubtError: no (usable) answer came back.
 * `ApiStatusError.from` is the one factory that turns a response into the right class.
 */
export class ApiError extends ReelpipeError {
  /** The operation, e.g. `aiShorts.create`, so a message says what was being done. */
  readonly operation: string;

  constructor(code: ErrorCode, operation: string, message: string, options: { cause?: unknown } = {}) {
    super(code, `${operation}: ${message}`, options);
    this.operation = operation;
  }
}

/** Field problems as the service reported them: field name (or `non_field_errors`) → messages. */
export type FieldErrors = Record<string, string[]>;

export class ApiStatusError extends ApiError {
  readonly status: number;
  readonly body: unknown;
  readonly fieldErrors: FieldErrors;
  /** Seconds the service asked us to wait (Retry-After), when it said so. */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    code: ErrorCode,
    operation: string,
    status: number,
    body: unknown,
    retryAfterSeconds?: number,
  ) {
    const fieldErrors = parseErrorBody(body);
    super(code, operation, `HTTP ${status}: ${describeFieldErrors(fieldErrors) || 'no details'}`);
    this.status = status;
    this.body = body;
    this.fieldErrors = fieldErrors;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  /** The one factory: picks the subclass for a status. */
  static from(operation: string, status: number, body: unknown, retryAfterSeconds?: number): ApiStatusError {
    const Class = STATUS_CLASSES[status] ?? (status >= 500 ? ApiServerError : ApiStatusError);
    const code: ErrorCode = Class === ApiStatusError ? 'API_STATUS' : CLASS_CODES.get(Class) ?? 'API_STATUS';
    return new Class(code, operation, status, body, retryAfterSeconds);
  }
}

export class ApiBadRequestError extends ApiStatusError {}
export class ApiUnauthorizedError extends ApiStatusError {}
export class ApiForbiddenError extends ApiStatusError {}
export class ApiNotFoundError extends ApiStatusError {}
export class ApiRateLimitError extends ApiStatusError {}
export class ApiServerError extends ApiStatusError {}

type StatusErrorClass = typeof ApiStatusError;
const STATUS_CLASSES: Record<number, StatusErrorClass> = {
  400: ApiBadRequestError,
  401: ApiUnauthorizedError,
  403: ApiForbiddenError,
  404: ApiNotFoundError,
  429: ApiRateLimitError,
};
const CLASS_CODES = new Map<StatusErrorClass, ErrorCode>([
  [ApiBadRequestError, 'API_BAD_REQUEST'],
  [ApiUnauthorizedError, 'API_UNAUTHORIZED'],
  [ApiForbiddenError, 'API_FORBIDDEN'],
  [ApiNotFoundError, 'API_NOT_FOUND'],
  [ApiRateLimitError, 'API_RATE_LIMITED'],
  [ApiServerError, 'API_SERVER_ERROR'],
]);

/** No response at all: refused, reset, DNS, TLS. `sent` tells whether the request may have left. */
export class ApiConnectionError extends ApiError {
  readonly sent: boolean;

  constructor(operation: string, message: string, sent: boolean, cause?: unknown) {
    super('API_CONNECTION', operation, message, { cause });
    this.sent = sent;
  }
}

/**
 * The caller aborted the call (the run is stopping: interrupted, past --max-wait, lock lost).
 * `sent` false: it was aborted before any byte of the request left. A creating POST aborted after
 * it may have left is raised as an ApiInDoubtError instead, with this as its cause.
 */
export class ApiAbortedError extends ApiConnectionError {
  constructor(operation: string, sent: boolean, reason?: unknown) {
    const why = reason instanceof Error ? `: ${reason.message}` : '';
    super(operation, `aborted ${sent ? 'after the request may have been sent' : 'before the request was sent'}${why}`, sent, reason);
  }
}

/**
 * Which timeout fired: connecting (nothing was sent), waiting for headers, a silence in the body,
 * or the attempt's overall deadline (a body trickling in too slowly to ever fall silent).
 */
export type TimeoutPhase = 'connect' | 'headers' | 'body' | 'attempt';

/**
 * An answer larger than the client reads (ClientOptions.maxResponseBytes). Policy: handled like a
 * 5xx, hence its code: a read is tried again, and a creating POST is in doubt (it was sent and
 * may have created a job; only its answer was unusable).
 */
export class ApiResponseTooLargeError extends ApiError {
  readonly status: number;

  constructor(operation: string, status: number, detail: string) {
    super('API_SERVER_ERROR', operation, `HTTP ${status} answer too large to read (${detail}); dropped unread`);
    this.status = status;
  }
}

/** A connect, header, body or overall timeout fired. */
export class ApiTimeoutError extends ApiError {
  readonly phase: TimeoutPhase | undefined;

  constructor(operation: string, message: string, cause?: unknown, phase?: TimeoutPhase) {
    super('API_TIMEOUT', operation, message, { cause });
    this.phase = phase;
  }
}

/**
 * A creating POST may or may not have created a job: it reached (or may have reached) the service,
 * but no usable answer came back. Never resent blindly: the runner reconciles it first.
 */
export class ApiInDoubtError extends ApiError {
  constructor(operation: string, message: string, cause?: unknown) {
    super('API_IN_DOUBT', operation, `${message} (the request may have created a job; not resent)`, { cause });
  }
}

/** A 2xx answer that does not match the expected shape. */
export class ApiInvalidResponseError extends ApiError {
  constructor(operation: string, message: string) {
    super('API_INVALID_RESPONSE', operation, `unexpected response: ${message}`);
  }
}

/**
 * DRF error bodies come in three shapes: `{"detail": "..."}`, a per-field object of message lists
 * (`{"link": ["Invalid link ID"]}`), and a bare array of strings (`["AI model not found"]`). The
 * text generator under /sse/ answers `{"error": "..."}`. All become field → messages.
 */
export function parseErrorBody(body: unknown): FieldErrors {
  if (typeof body === 'string') return body.trim() ? { detail: [body.trim().slice(0, 500)] } : {};
  if (Array.isArray(body)) return { non_field_errors: body.map(String) };
  if (body === null || typeof body !== 'object') return {};
  const out: FieldErrors = {};
  for (const [field, value] of Object.entries(body as Record<string, unknown>)) {
    out[field] = flattenMessages(value, field);
  }
  return out;
}

function flattenMessages(value: unknown, field: string): string[] {
  if (Array.isArray(value)) return value.flatMap((item) => flattenMessages(item, field));
  if (value !== null && typeof value === 'object') {
    // Nested serializer errors: {"caption_setting": {"style": ["..."]}} → "style: ...".
    return Object.entries(value as Record<string, unknown>).flatMap(([key, inner]) =>
      flattenMessages(inner, key).map((message) => `${key}: ${message}`),
    );
  }
  return [String(value)];
}

/** `detail`/`error`/`non_field_errors` read as plain sentences; fields read as `field: message`. */
export function describeFieldErrors(errors: FieldErrors): string {
  return Object.entries(errors)
    .map(([field, messages]) =>
      ['detail', 'error', 'non_field_errors'].includes(field)
        ? messages.join('; ')
        : `${field}: ${messages.join('; ')}`,
    )
    .join('; ');
}
