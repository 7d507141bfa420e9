import { StateBusyError } from '../../errors.js';

/**
 * How long a write waits for SQLite's write lock while another process holds it (a run of another
 * manifest committing, a `status` migrating an old file) before it is refused. Ten seconds: a
 * commit holds the lock for milliseconds, so a holder still holding it after ten is not committing
 * but stopped — paused or hung in the middle of a write.
 */
export const BUSY_TIMEOUT_MS = 10_000;

/** Whether `error` is SQLite's answer that another process holds the lock (SQLITE_BUSY and its extended codes). */
export const isBusy = (error: unknown): boolean => /^SQLITE_BUSY/.test(String((error as { code?: unknown } | null)?.code ?? ''));

/** Runs `write`; SQLite's lock held by another process past the busy timeout is a StateBusyError naming `path` (exit 75). */
export function unlessHeld<T>(path: string, write: () => T): T {
  try {
    return write();
  } catch (error) {
    if (isBusy(error)) throw new StateBusyError(path, BUSY_TIMEOUT_MS, { cause: error });
    throw error;
  }
}
