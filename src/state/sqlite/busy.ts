import type Database from 'better-sqlite3';
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

/** The connections whose last write found the lock held past the timeout: they wait no more (below). */
const held = new WeakSet<Database.Database>();

/**
 * Runs `write` on `db`; SQLite's lock held by another process past the busy timeout is a
 * StateBusyError naming the file (exit 75).
 *
 * Rule: once a write has waited the whole timeout, the connection waits no more (busy_timeout 0)
 * until a write gets through: the holder is stopped, not committing, and each later write would
 * block the thread another ten seconds (a run with four jobs in flight took 40 s to stop). A later
 * write still tries the lock once, so a holder that has let go since is not refused.
 */
export function unlessHeld<T>(db: Database.Database, write: () => T): T {
  try {
    const done = write();
    if (held.delete(db)) db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    return done;
  } catch (error) {
    if (!isBusy(error)) throw error;
    if (!held.has(db)) db.pragma('busy_timeout = 0');
    held.add(db);
    throw new StateBusyError(db.name, BUSY_TIMEOUT_MS, { cause: error });
  }
}
