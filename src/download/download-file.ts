import { createHash } from 'node:crypto';
import type { Dispatcher } from 'undici';
import { undici } from '../util/lazy-undici.js';
import { dropUnread } from '../api/read-body.js';
import { DownloadError, DownloadRefusedError } from '../errors.js';
import { BlockedAddressError, guardedDispatcher } from './address-guard.js';
import { writeAtomically } from './atomic-write.js';
import { statStampOf } from './verify-file.js';
import type { OutputFolders } from './output-folders.js';
import { isPlausibleContentType, type OutputMedia } from './content-types.js';
import { DEFAULT_MAX_DOWNLOAD_BYTES, MAX_DOWNLOAD_BYTES_ENV } from './download-settings.js';

/** One download request as the run's log records it. */
export interface DownloadRequestLine {
  method: 'GET';
  host: string;
  path: string;
  /** null when no answer came. */
  status: number | null;
  durationMs: number;
  bytes?: number;
  error?: string;
}

/** A finished, verified file. */
export interface DownloadedFile {
  path: string;
  bytes: number;
  sha256: string;
  contentType: string;
  /** Its stat stamp right after its rename into place: see verify-file.ts. */
  statStamp: string;
}

/** The URL is no longer valid (403, 404, 410): re-read the job for a fresh one. */
export class ExpiredUrlError extends DownloadError {
  readonly status: number;
  constructor(status: number, url: string) {
    super(`download refused with HTTP ${status} (expired link?): ${redact(url)}`);
    this.status = status;
  }
}

/** The body stopped short, or failed a check: worth another try. */
export class IncompleteDownloadError extends DownloadError {}

/** An output larger than allowed: nothing is kept, and trying again would not change it. */
export class DownloadTooLargeError extends DownloadRefusedError {
  constructor(url: string, why: string, limit: number) {
    super(`${redact(url)} ${why}, above the download ceiling of ${limit} bytes: not saved (raise it with ${MAX_DOWNLOAD_BYTES_ENV} if such a file is expected)`);
  }
}

export interface DownloadOptions {
  media: OutputMedia;
  /** Chooses the final path once the content type is known (it decides the extension). */
  target: (contentType: string | undefined) => string | Promise<string>;
  /** The outputs folder: no folder inside it is written through a symbolic link. @default not checked */
  root?: OutputFolders;
  signal?: AbortSignal;
  /** @default guardedDispatcher({}): public addresses only, up to 5 redirects */
  dispatcher?: Dispatcher;
  /** Largest file kept; a larger one is refused (announced) or cut off (not announced). @default DEFAULT_MAX_DOWNLOAD_BYTES */
  maxBytes?: number;
  /** Called after each chunk is written; the test-only kill hook uses it. */
  onChunk?: (bytesSoFar: number) => void;
  /**
   * Told of each request once it has ended: as a run's log records every request (the path only:
   * a signed link's query carries credentials of its own). @default none
   */
  onRequest?: (line: DownloadRequestLine) => void;
  /** @default 30_000 */
  headersTimeoutMs?: number;
  /** @default 60_000 */
  bodyTimeoutMs?: number;
}

/**
 * Streams `url` to a temporary file beside its final path, checking as it goes, then fsyncs and
 * renames it into place. Only a complete, checked file ever carries the final name: a run killed
 * mid-download leaves a `.NAME.PID.part` file, which the next attempt removes. A file announced
 * (Content-Length) above the ceiling is refused before a byte is written; a body running past the
 * ceiling, or past its own announced size, is cut off there and its temporary file removed.
 */
export async function downloadFile(url: string, options: DownloadOptions): Promise<DownloadedFile> {
  if (!options.onRequest) return fetchFile(url, options);
  const started = Date.now();
  let status: number | null = null;
  const told = (extra: { bytes: number } | { error: string }) => {
    const where = URL.canParse(url) ? new URL(url) : { host: '', pathname: '(invalid URL)' };
    options.onRequest?.({ method: 'GET', host: where.host, path: where.pathname, status, durationMs: Date.now() - started, ...extra });
  };
  try {
    const file = await fetchFile(url, { ...options, onStatus: (code) => (status = code) });
    told({ bytes: file.bytes });
    return file;
  } catch (error) {
    told({ error: (error as Error).message });
    throw error;
  }
}

async function fetchFile(url: string, options: DownloadOptions & { onStatus?: (status: number) => void }): Promise<DownloadedFile> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_DOWNLOAD_BYTES;
  const response = await undici().request(url, {
    method: 'GET',
    dispatcher: options.dispatcher ?? guardedDispatcher({}),
    signal: options.signal,
    headersTimeout: options.headersTimeoutMs ?? 30_000,
    bodyTimeout: options.bodyTimeoutMs ?? 60_000,
  }).catch((error: unknown) => {
    if (error instanceof BlockedAddressError) throw error;
    throw new IncompleteDownloadError(`download of ${redact(url)} failed: ${(error as Error).message}`, { cause: error });
  });
  options.onStatus?.(response.statusCode);
  const contentType = headerValue(response.headers['content-type']);
  const announced = Number(headerValue(response.headers['content-length']) ?? NaN);
  const refusal = statusRefusal(url, response.statusCode, options.media, contentType)
    ?? (announced > maxBytes ? new DownloadTooLargeError(url, `announces ${announced} bytes`, maxBytes) : undefined);
  if (refusal) {
    // A small error page is drained (the socket is reused); a huge body is cut off unread.
    if (refusal instanceof DownloadTooLargeError) dropUnread(response.body);
    else await response.body.dump();
    throw refusal;
  }
  const path = await options.target(contentType);
  const expected = Number.isFinite(announced) ? announced : undefined;
  const written = await writeChecked(response.body, path, { url, expected, maxBytes, options });
  return { path, ...written, contentType: contentType ?? 'application/octet-stream', statStamp: statStampOf(path) };
}

function statusRefusal(url: string, status: number, media: OutputMedia, contentType: string | undefined): DownloadError | undefined {
  if ([403, 404, 410].includes(status)) return new ExpiredUrlError(status, url);
  if (status !== 200) return new IncompleteDownloadError(`download of ${redact(url)} answered HTTP ${status}`);
  if (!isPlausibleContentType(media, contentType)) {
    return new IncompleteDownloadError(`download of ${redact(url)} is ${contentType}, not a plausible ${media} file`);
  }
  return undefined;
}

interface WriteLimits {
  url: string;
  expected: number | undefined;
  maxBytes: number;
  options: DownloadOptions;
}

async function writeChecked(body: AsyncIterable<Buffer>, path: string, limits: WriteLimits): Promise<{ bytes: number; sha256: string }> {
  const { url, expected, maxBytes, options } = limits;
  return writeAtomically(path, async (file) => {
    const hash = createHash('sha256');
    let bytes = 0;
    try {
      for await (const chunk of body) {
        if (bytes + chunk.length > maxBytes) throw new DownloadTooLargeError(url, `ran past ${maxBytes} bytes`, maxBytes);
        if (expected !== undefined && bytes + chunk.length > expected) {
          throw new IncompleteDownloadError(`download of ${redact(url)} sent more than the ${expected} bytes it announced`);
        }
        hash.update(chunk);
        file.write(chunk);
        bytes += chunk.length;
        options.onChunk?.(bytes);
      }
    } catch (error) {
      if (error instanceof DownloadError) throw error;
      throw new IncompleteDownloadError(`download to ${path} was cut after ${bytes} bytes: ${(error as Error).message}`, { cause: error });
    }
    const problem = bytes === 0 ? 'is empty' : expected !== undefined && bytes !== expected ? `has ${bytes} of ${expected} bytes` : undefined;
    if (problem) throw new IncompleteDownloadError(`download to ${path} ${problem}`);
    return { bytes, sha256: hash.digest('hex') };
  }, options.root);
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Signed CDN URLs carry credentials of their own in the query: never print it. */
export function redact(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}${parsed.search ? '?…' : ''}`;
  } catch {
    return '(invalid URL)';
  }
}
