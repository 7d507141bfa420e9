import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { StateError } from '../errors.js';
import { migrate } from './migrations.js';

/**
 * Opens (creating if needed) the state database and migrates it. Safe when several processes open
 * one new database at once: see `migrate`.
 *
 * Policy: WAL, so readers (`status`, `plan`) never block the running writer; a busy timeout, so
 * two runs of different manifests on one database queue for the write lock instead of failing;
 * `synchronous=NORMAL` for ordinary writes (a process crash loses nothing in WAL mode), raised to
 * FULL around the commits that record money (see StateStore.durably).
 */
export function openStateDb(path: string): Database.Database {
  mkdirSync(dirname(path), { recursive: true });
  let db: Database.Database;
  try {
    db = new Database(path);
    // First, so switching to WAL and migrating wait for another process opening it at the same time.
    db.pragma('busy_timeout = 10000');
    whileBusy(() => db.pragma('journal_mode = WAL'));
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    whileBusy(() => migrate(db));
  } catch (error) {
    if (error instanceof StateError) throw error;
    throw new StateError(`cannot open state database ${path}: ${(error as Error).message}`, { cause: error });
  }
  return db;
}

/**
 * Runs `step` again while SQLite answers SQLITE_BUSY, for up to 10 s. Needed on first use: while
 * another process is switching a new file to WAL (or recovering its WAL index), SQLite returns BUSY
 * at once without consulting the busy timeout. The wait blocks the thread, which is what a
 * synchronous open wants.
 */
function whileBusy<T>(step: () => T): T {
  const deadline = Date.now() + 10_000;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      return step();
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() > deadline) throw error;
      Atomics.wait(pause, 0, 0, 5 + Math.floor(Math.random() * 20));
    }
  }
}

/** Opens an existing database read-only, or returns undefined when there is none yet. */
export function openStateDbReadOnly(path: string): Database.Database | undefined {
  // better-sqlite3 reports a missing folder without SQLITE_CANTOPEN, so look first.
  if (!existsSync(path)) return undefined;
  try {
    const db = new Database(path, { readonly: true, fileMustExist: true });
    db.pragma('busy_timeout = 10000');
    return db;
  } catch (error) {
    if ((error as { code?: string }).code === 'SQLITE_CANTOPEN') return undefined;
    throw new StateError(`cannot read state database ${path}: ${(error as Error).message}`, { cause: error });
  }
}
