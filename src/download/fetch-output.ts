import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { DownloadError } from '../errors.js';
import { extensionFor } from './content-types.js';
import { downloadFile, ExpiredUrlError, IncompleteDownloadError, redact, type DownloadOptions, type DownloadedFile } from './download-file.js';
import { outputPath, type OutputName } from './output-path.js';

export interface FetchOutputOptions extends Omit<DownloadOptions, 'target'> {
  outputsDir: string;
  name: Omit<OutputName, 'ext'>;
  /** Re-reads the job and returns the output's current URL (undefined if it has none now). */
  refresh: () => Promise<string | undefined>;
  sleep: (ms: number) => Promise<void>;
  /** Tries in all, counting refreshes. @default 4 */
  attempts?: number;
  /** First pause between tries, doubled each time. @default 500 */
  backoffMs?: number;
}

/**
 * Downloads one output into `OUTPUTS/STEP/NAME.EXT`, verified. Policy: a body cut short or an
 * odd status is tried again after a growing pause; an expired link (403/404/410) is not retried
 * as is but refreshed by re-reading the job, since CDN links may expire before we fetch them.
 */
export async function fetchOutput(url: string, options: FetchOutputOptions): Promise<DownloadedFile> {
  const attempts = options.attempts ?? 4;
  let current = url;
  let lastError: unknown;
  let refreshedUnreachable = false;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    try {
      return await downloadFile(current, {
        ...options,
        target: (type) => outputPath(options.outputsDir, { ...options.name, ext: extensionFor(options.media, current, type) }),
      });
    } catch (error) {
      lastError = error;
      if (options.signal?.aborted) throw error;
      if (error instanceof ExpiredUrlError) {
        const fresh = await options.refresh();
        if (!fresh) throw new DownloadError(`${redact(current)} expired and the job no longer offers the output`, { cause: error });
        current = fresh;
      } else if (error instanceof IncompleteDownloadError && unreachable(error) && !refreshedUnreachable) {
        // Why refresh: a host that refuses connections may be a link recorded from an earlier
        // service address (an embedded sandbox restarts on a new port; CDN hosts rotate). One
        // re-read of the job per file; if the link is unchanged, it is retried like any other.
        refreshedUnreachable = true;
        const fresh = await options.refresh().catch(() => undefined);
        if (fresh && fresh !== current) current = fresh;
        else await options.sleep(options.backoffMs ?? 500);
      } else if (error instanceof IncompleteDownloadError) {
        await options.sleep((options.backoffMs ?? 500) * 2 ** (attempt - 1));
      } else {
        throw error;
      }
    }
  }
  throw new DownloadError(`gave up on ${redact(current)} after ${attempts} tries: ${(lastError as Error).message}`, {
    cause: lastError,
  });
}

/** Whether the download failed before any connection was made: nobody listens at that address. */
function unreachable(error: Error): boolean {
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') return true;
  }
  return false;
}

/**
 * Whether a recorded download is still intact on disk. The size check is free; the checksum
 * (reading the whole file) is done when `full` is set.
 */
export async function fileMatches(path: string, bytes: number, sha256: string, full = false): Promise<boolean> {
  const info = await stat(path).catch(() => undefined);
  if (!info?.isFile() || info.size !== bytes) return false;
  if (!full) return true;
  return (await sha256Of(path)) === sha256;
}

export async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
