import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';

/** An answer larger than the client reads: it is dropped unread past the limit. */
export class BodyTooLargeError extends Error {
  constructor(readonly limit: number, readonly announced: number | undefined) {
    super(`${announced === undefined ? `it went past ${limit} bytes` : `it announced ${announced} bytes`}; at most ${limit} are read`);
  }
}

/**
 * Reads a response body as text, at most `limit` bytes. A Content-Length above it is refused
 * before a byte is read; a body that grows past it (no length, or a lying one) is cut off there
 * and the stream destroyed. Why: API answers are small JSON, and buffering whatever arrives let
 * one 1.5 GB answer take 3 GB of memory.
 */
export async function readCapped(body: Readable, headers: IncomingHttpHeaders, limit: number): Promise<string> {
  const announced = Number(headers['content-length']);
  if (Number.isFinite(announced) && announced > limit) {
    dropUnread(body);
    throw new BodyTooLargeError(limit, announced);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > limit) {
      dropUnread(body);
      throw new BodyTooLargeError(limit, undefined);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Closes a body unread. Its stream then reports an abort nobody waits for: that one is expected. */
export function dropUnread(body: Readable): void {
  body.on('error', () => undefined);
  body.destroy();
}
