import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { StateError } from '../errors.js';
import { migrate } from './migrations.js';

/** Where the state lives unless `--state PATH` says otherwise, relative to the working directory. */
export const DEFAULT_STATE_PATH = 'state/reelpipe.db';

/** The embedded sandbox's state lives apart, so a trial run can never mark real jobs done. */
export const SANDBOX_STATE_PATH = 'state/sandbox.db';

/** The state database a command uses: `--state PATH`, else the sandbox's or the default one. */
export function resolveStatePath(cwd: string, statePath?: string, sandbox = false): string {
  return resolve(cwd, statePath ?? (sandbox ? SANDBOX_STATE_PATH : DEFAULT_STATE_PATH));
}

/**
 * Opens (creating if needed) the state database and migrates it.
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
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('busy_timeout = 10000');
    db.pragma('foreign_keys = ON');
    migrate(db);
  } catch (error) {
    if (error instanceof StateError) throw error;
    throw new StateError(`cannot open state database ${path}: ${(error as Error).message}`, { cause: error });
  }
  return db;
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
