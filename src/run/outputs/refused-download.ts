import { DownloadRefusedError } from '../../errors.js';

/**
 * How a finished job's `failed_reason` says its files were refused (see DownloadRefusedError):
 * kept in the reason itself, so the database alone tells a refusal that waits for a person's fix
 * (exit 1) from a download that failed for now and that the next run tries again (exit 4).
 */
const REFUSED = 'download refused: ';
const FAILED = 'download failed: ';

/** The reason recorded for a download that threw `error`. */
export function downloadFailureReason(error: unknown): string {
  return `${isRefusal(error) ? REFUSED : FAILED}${error instanceof Error ? error.message : String(error)}`;
}

/** Whether a recorded reason says the files were refused until a person changes something. */
export function isRefusedDownload(failedReason: string | null | undefined): boolean {
  return failedReason?.startsWith(REFUSED) ?? false;
}

function isRefusal(error: unknown): boolean {
  // A refusal may come wrapped (the last of several tries): look down the causes.
  for (let e = error, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) if (e instanceof DownloadRefusedError) return true;
  return false;
}
