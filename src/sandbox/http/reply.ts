import type { ServerResponse } from 'node:http';
import type { DrfErrors } from './drf-errors.js';

/** What a handler answers: a JSON body, or raw bytes with their content type. */
export interface Reply {
  status: number;
  body?: unknown;
  raw?: Buffer | string;
  contentType?: string;
  headers?: Record<string, string>;
}

/** Thrown by a handler to answer with an error status; the server turns it into a Reply. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {
    super(`HTTP ${status}`);
  }

  toReply(): Reply {
    return { status: this.status, body: this.body, headers: this.headers };
  }
}

export const json = (status: number, body: unknown): Reply => ({ status, body });

/** 400 with DRF's per-field object of message lists. */
export const fieldError = (errors: DrfErrors) => new HttpError(400, errors);
/** 400 with one field's message list, e.g. `{"link": ["Invalid link ID"]}`. */
export const badField = (field: string, ...messages: string[]) => new HttpError(400, { [field]: messages });
/** 400 with DRF's bare array of non-field messages, e.g. `["AI model not found"]`. */
export const nonFieldError = (...messages: string[]) => new HttpError(400, messages);
/** 404 as DRF's get_object_or_404 words it. */
export const notFound = (model: string) => new HttpError(404, { detail: `No ${model} matches the given query.` });

/**
 * Under /sse/ errors read `{"error": "..."}` instead of DRF's `{"detail": "..."}` (behaviour
 * notes): every error there, whether a route answered it or none matched the path.
 */
export function sseError(reply: Reply): Reply {
  if (reply.status < 400 || reply.body === null || typeof reply.body !== 'object') return reply;
  const body = reply.body as Record<string, unknown>;
  const message = typeof body.detail === 'string' ? body.detail : JSON.stringify(body);
  return { ...reply, body: { error: message } };
}

const SSE_PREFIX = '/sse/';

/** A path no route serves (a non-UUID id included: `{id}` matches UUIDs only), as DRF's 404. */
export function noRoute(path: string): Reply {
  const reply: Reply = { status: 404, body: { detail: 'Not found.' } };
  return path.startsWith(SSE_PREFIX) ? sseError(reply) : reply;
}

export function sendReply(res: ServerResponse, reply: Reply): void {
  const isRaw = reply.raw !== undefined;
  const payload = isRaw ? reply.raw! : reply.body === undefined ? '' : JSON.stringify(reply.body);
  const bytes = typeof payload === 'string' ? Buffer.from(payload) : payload;
  const headers: Record<string, string | number> = { ...reply.headers, 'content-length': bytes.length };
  if (bytes.length > 0 || isRaw) headers['content-type'] = reply.contentType ?? 'application/json';
  res.writeHead(reply.status, headers);
  res.end(bytes);
}
