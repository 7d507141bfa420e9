import { createHash } from 'node:crypto';
import { Agent, interceptors, request, type Dispatcher } from 'undici';
import { DownloadError } from '../errors.js';
import { writeAtomically } from './atomic-write.js';
import { isPlausibleContentType, type OutputMedia } from './content-types.js';

/** A finished, verified file. */
export interface DownloadedFile {
  path: string;
  bytes: number;
  sha256: string;
  contentType: string;
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

export interface DownloadOptions {
  media: OutputMedia;
  /** Chooses the final path once the content type is known (it decides the extension). */
  target: (contentType: string | undefined) => string;
  signal?: AbortSignal;
  /** @default a shared agent that follows up to 5 redirects */
  dispatcher?: Dispatcher;
  /** Called after each chunk is written; the test-only kill hook uses it. */
  onChunk?: (bytesSoFar: number) => void;
  /** @default 30_000 */
  headersTimeoutMs?: number;
  /** @default 60_000 */
  bodyTimeoutMs?: number;
}

let sharedAgent: Dispatcher | undefined;
function defaultAgent(): Dispatcher {
  sharedAgent ??= new Agent({ connections: 32 }).compose(interceptors.redirect({ maxRedirections: 5 }));
  return sharedAgent;
}

/**
 * Streams `url` to a temporary file beside its final path, checking as it goes, then fsyncs and
 * renames it into place. Only a complete, checked file ever carries the final name: a run killed
 * mid-download leaves a `.NAME.PID.part` file, which the next attempt removes.
 */
export async function downloadFile(url: string, options: DownloadOptions): Promise<DownloadedFile> {
  const response = await request(url, {
    method: 'GET',
    dispatcher: options.dispatcher ?? defaultAgent(),
    signal: options.signal,
    headersTimeout: options.headersTimeoutMs ?? 30_000,
    bodyTimeout: options.bodyTimeoutMs ?? 60_000,
  }).catch((error: unknown) => {
    throw new IncompleteDownloadError(`download of ${redact(url)} failed: ${(error as Error).message}`, { cause: error });
  });
  const contentType = headerValue(response.headers['content-type']);
  if ([403, 404, 410].includes(response.statusCode)) {
    await response.body.dump();
    throw new ExpiredUrlError(response.statusCode, url);
  }
  if (response.statusCode !== 200) {
    await response.body.dump();
    throw new IncompleteDownloadError(`download of ${redact(url)} answered HTTP ${response.statusCode}`);
  }
  if (!isPlausibleContentType(options.media, contentType)) {
    await response.body.dump();
    throw new IncompleteDownloadError(`download of ${redact(url)} is ${contentType}, not a plausible ${options.media} file`);
  }
  const path = options.target(contentType);
  const expected = Number(headerValue(response.headers['content-length']) ?? NaN);
  const written = await writeChecked(response.body, path, Number.isFinite(expected) ? expected : undefined, options);
  return { path, ...written, contentType: contentType ?? 'application/octet-stream' };
}

async function writeChecked(
  body: AsyncIterable<Buffer>,
  path: string,
  expectedBytes: number | undefined,
  options: DownloadOptions,
): Promise<{ bytes: number; sha256: string }> {
  return writeAtomically(path, async (file) => {
    const hash = createHash('sha256');
    let bytes = 0;
    try {
      for await (const chunk of body) {
        hash.update(chunk);
        await file.write(chunk);
        bytes += chunk.length;
        options.onChunk?.(bytes);
      }
    } catch (error) {
      throw new IncompleteDownloadError(`download to ${path} was cut after ${bytes} bytes: ${(error as Error).message}`, { cause: error });
    }
    const problem = bytes === 0 ? 'is empty' : expectedBytes !== undefined && bytes !== expectedBytes ? `has ${bytes} of ${expectedBytes} bytes` : undefined;
    if (problem) throw new IncompleteDownloadError(`download to ${path} ${problem}`);
    return { bytes, sha256: hash.digest('hex') };
  });
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
