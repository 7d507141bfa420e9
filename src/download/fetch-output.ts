import { DownloadError } from '../errors.js';
import { BlockedAddressError } from './address-guard.js';
import { extensionFor } from './content-types.js';
import { downloadFile, ExpiredUrlError, IncompleteDownloadError, redact, type DownloadOptions, type DownloadedFile } from './download-file.js';
import { OutputFolders } from './output-folders.js';
import { outputPath, type OutputName } from './output-path.js';

/**
 * Re-reading the job for a fresh link failed for now (429, 5xx, no answer, after the client's own
 * retries): the try counts, and the next one re-reads again after a pause.
 */
export class RefreshUnavailableError extends DownloadError {
  /** The service's advised wait (Retry-After), already clamped; else the download's own backoff applies. */
  readonly retryAfterMs: number | undefined;

  constructor(message: string, retryAfterMs: number | undefined, cause: unknown) {
    super(`could not re-read the job for a fresh link: ${message}`, { cause });
    this.retryAfterMs = retryAfterMs;
  }
}

export interface FetchOutputOptions extends Omit<DownloadOptions, 'target' | 'root'> {
  outputsDir: string;
  /** The outputs folder's checked folders, shared by a run's downloads. @default new OutputFolders(outputsDir) */
  folders?: OutputFolders;
  name: Omit<OutputName, 'ext'>;
  /**
   * Re-reads the job and returns the output's current URL (undefined if it has none now). Throws
   * RefreshUnavailableError when the read failed for now; any other error ends the download.
   */
  refresh: () => Promise<string | undefined>;
  sleep: (ms: number) => Promise<void>;
  /** Tries in all, counting refreshes. @default 4 */
  attempts?: number;
  /** First pause between tries, doubled each time. @default 500 */
  backoffMs?: number;
  /** Told the file's final path once it is known, before anything is written to it (a run moves an earlier job's file aside). @default none */
  claim?: (path: string) => void | Promise<void>;
}

/** What the next try does: re-read the job first (`must`, or `try` ignoring a failed read), after a pause. */
type Next = { refresh: 'must' | 'try' | 'no'; waitMs: number } | { fail: Error };

/**
 * Downloads one output into `OUTPUTS/STEP/NAME.EXT`, verified. Policy, per failure:
 * - a body cut short or an odd status: tried again after a growing pause;
 * - an expired link (403/404/410): re-read the job for a fresh one (CDN links may expire before we
 *   fetch them), not retried as is;
 * - re-reading the job failed for now (RefreshUnavailableError): the try counts, and the next one
 *   re-reads after the service's advised wait or the growing pause; the last failure is the reason
 *   given when the tries run out;
 * - a host nobody listens at, or one at a private address: the link may be one recorded from an
 *   earlier service address (an embedded sandbox restarts on a new port; CDN hosts rotate), so the
 *   job is re-read once; a private address still refused after that ends the download;
 * - anything else (too large, a symbolic link in the way, no link any more): ends it at once.
 */
export async function fetchOutput(url: string, options: FetchOutputOptions): Promise<DownloadedFile> {
  const attempts = options.attempts ?? 4;
  const seen = { blocked: false, unreachable: false };
  let current = url;
  let refresh: 'must' | 'try' | 'no' = 'no';
  let lastError: unknown;
  const root = options.folders ?? new OutputFolders(options.outputsDir);
  for (let attempt = 1; attempt <= attempts; attempt++) {
    try {
      if (refresh !== 'no') current = await freshUrl(options, current, refresh);
      refresh = 'no';
      return await downloadFile(current, {
        ...options,
        root,
        target: async (type) => {
          const path = outputPath(options.outputsDir, { ...options.name, ext: extensionFor(options.media, current, type) });
          await options.claim?.(path);
          return path;
        },
      });
    } catch (error) {
      lastError = error;
      if (options.signal?.aborted) throw error;
      const next = afterFailure(error, (options.backoffMs ?? 500) * 2 ** (attempt - 1), seen);
      if ('fail' in next) throw next.fail;
      refresh = next.refresh;
      if (next.waitMs > 0 && attempt < attempts) await options.sleep(next.waitMs);
    }
  }
  throw new DownloadError(`gave up on ${redact(current)} after ${attempts} tries: ${(lastError as Error).message}`, {
    cause: lastError,
  });
}

function afterFailure(error: unknown, backoffMs: number, seen: { blocked: boolean; unreachable: boolean }): Next {
  if (error instanceof RefreshUnavailableError) return { refresh: 'must', waitMs: error.retryAfterMs ?? backoffMs };
  if (error instanceof ExpiredUrlError) return { refresh: 'must', waitMs: 0 };
  if (error instanceof BlockedAddressError) {
    if (seen.blocked) return { fail: error };
    seen.blocked = true;
    return { refresh: 'try', waitMs: 0 };
  }
  if (error instanceof IncompleteDownloadError && unreachable(error) && !seen.unreachable) {
    seen.unreachable = true;
    return { refresh: 'try', waitMs: 0 };
  }
  if (error instanceof IncompleteDownloadError) return { refresh: 'no', waitMs: backoffMs };
  return { fail: error as Error };
}

/** The link to try next: a fresh one from the job, or (`try`, the read failing) the same one. */
async function freshUrl(options: FetchOutputOptions, current: string, mode: 'must' | 'try'): Promise<string> {
  if (mode === 'try') return (await options.refresh().catch(() => undefined)) ?? current;
  const fresh = await options.refresh();
  if (!fresh) throw new DownloadError(`${redact(current)} expired and the job no longer offers the output`);
  return fresh;
}

/** Whether the download failed before any connection was made: nobody listens at that address. */
function unreachable(error: Error): boolean {
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') return true;
  }
  return false;
}
