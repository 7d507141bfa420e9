import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { StateBusyError, StateDamagedError, StateError, StateMismatchError } from '../../errors.js';
import { BUSY_TIMEOUT_MS, isBusy } from './busy.js';
import { migrate, MIGRATIONS, newerSchemaError, SCHEMA_VERSION } from './migrations.js';

/** The writer's page cache, in KiB (negative: a size, not a page count; openStateDb says why). */
const WRITER_CACHE = -8000;

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
  let db: Database.Database | undefined;
  try {
    const opened = (db = new Database(path));
    // First, so switching to WAL and migrating wait for another process opening it at the same time.
    opened.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    // Before anything writes (WAL changes the header): a file that is not ours is left as it is.
    whileBusy(() => assertOurs(opened, path));
    whileBusy(() => opened.pragma('journal_mode = WAL'));
    opened.pragma('synchronous = NORMAL');
    // Savepoints' sub-journals and sorts' temporary b-trees in memory, not in files in /var/tmp:
    // each write of a run is a savepoint in the group commit's transaction, whose sub-journal was
    // a file (created, written page by page, deleted): 48 of a job's 86 pwrites (strace).
    opened.pragma('temp_store = MEMORY');
    // The WAL copied into the database every 10,000 pages (40 MB), not every 1,000: a checkpoint
    // runs inside the commit that crosses the mark, on the run's one thread, and writes each page
    // changed since the last once. At 1,000, 2,000 jobs checkpointed 43 times (7,671 page writes,
    // 43 fsyncs); at 10,000, 6 times (2,739 writes): 0.5–0.8 ms of CPU less a job (three pairs).
    opened.pragma('wal_autocheckpoint = 10000');
    // A page cache of 8 MB, not better-sqlite3's 16: a run's writes land all over the key indexes,
    // which outgrow either at a large batch, and the pages come from the OS's file cache. Two pairs
    // of 30,000-job runs: peak 151–153 MB against 161–164, CPU 144.5 · 150.2 s against 145.3 ·
    // 159.1; a 100,000-job run's peak 186 MB against 200.
    opened.pragma(`cache_size = ${WRITER_CACHE}`);
    opened.pragma('foreign_keys = ON');
    const applied = whileBusy(() => migrate(opened));
    compactAfter(opened, applied);
    return opened;
  } catch (error) {
    db?.close();
    if (error instanceof StateError || error instanceof StateMismatchError || error instanceof StateDamagedError) throw error;
    if (isBusy(error)) throw new StateBusyError(path, BUSY_TIMEOUT_MS, { cause: error });
    throw damagedOr(path, error) ?? new StateError(`cannot open state database ${path}: ${(error as Error).message}`, { cause: error });
  }
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
      if (!isBusy(error) || Date.now() > deadline) throw error;
      Atomics.wait(pause, 0, 0, 5 + Math.floor(Math.random() * 20));
    }
  }
}

/**
 * A reader's page cache, in KiB (negative: SQLite's unit for a size, not a page count): SQLite's
 * own default of 2 MB, not better-sqlite3's 16 MB. Why: a reader makes one pass (status, the
 * report's outline and windows) over pages the OS's file cache holds anyway, so a cache that fills
 * to 16 MB on the way is memory held for nothing: `reelpipe report` of a 100,000-job state peaked
 * at 152–155 MB with 16 MB against 137–141 MB with 2 MB, and was no faster (11.6–11.9 s against
 * 11.1–11.8 s).
 */
const READER_CACHE = -2000;

/** Opens an existing database read-only, or returns undefined when there is none yet. */
export function openStateDbReadOnly(path: string): Database.Database | undefined {
  // better-sqlite3 reports a missing folder without SQLITE_CANTOPEN, so look first.
  if (!existsSync(path)) return undefined;
  try {
    const db = new Database(path, { readonly: true, fileMustExist: true });
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    db.pragma(`cache_size = ${READER_CACHE}`);
    try {
      assertOurs(db, path);
    } catch (error) {
      db.close();
      throw error;
    }
    return db;
  } catch (error) {
    if (error instanceof StateDamagedError || error instanceof StateMismatchError) throw error;
    if ((error as { code?: string }).code === 'SQLITE_CANTOPEN') return undefined;
    throw damagedOr(path, error) ?? new StateError(`cannot read state database ${path}: ${(error as Error).message}`, { cause: error });
  }
}

/** SQLite's answers for a file that is not a database, or one whose pages are damaged. */
const DAMAGED = /^SQLITE_(NOTADB|CORRUPT)/;

/**
 * Reads the list of tables (SQLite opens lazily: this is the first read of the file's header) and
 * refuses a file that is not a reelpipe state database. An empty file is a new database; one with
 * tables but no schema_version is another program's, which migrating would write into.
 */
function assertOurs(db: Database.Database, path: string): void {
  let tables: string[];
  try {
    tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
  } catch (error) {
    throw damagedOr(path, error) ?? error;
  }
  if (tables.length > 0 && !tables.includes('schema_version')) {
    const some = tables.slice(0, 3).join(', ') + (tables.length > 3 ? ', …' : '');
    throw new StateDamagedError(path, `is an SQLite database, but not a reelpipe state database (its tables: ${some})`);
  }
  if (tables.includes('schema_version')) {
    const current = (db.prepare('SELECT max(version) FROM schema_version').pluck().get() as number | null) ?? 0;
    if (current > SCHEMA_VERSION) throw newerSchemaError(`the state database ${path}`, current, SCHEMA_VERSION, '; nothing was sent and the database is left as it is');
  }
}

/** The located error for a damaged or foreign file, when `error` says that is what it is. */
function damagedOr(path: string, error: unknown): StateDamagedError | undefined {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string' || !DAMAGED.test(code)) return undefined;
  return new StateDamagedError(path, `is not a reelpipe state database, or is damaged (SQLite: ${(error as Error).message})`, { cause: error });
}

/**
 * Rewrites the database compactly after a migration that left pages mostly empty (Migration.
 * compactAfter), when that is safe to do now. Skipped on a new file (nothing to compact) and while
 * any other process holds a manifest's lock: VACUUM holds the write lock for as long as it takes
 * (seconds on a file with months of events), and that run's commits would wait past their timeout.
 * Policy: best effort. The database is whole and correct without it, only slower to scan, so a
 * compaction that cannot run (no room on the disk for the copy VACUUM makes, a busy file) is
 * skipped rather than failing the command.
 */
function compactAfter(db: Database.Database, applied: readonly number[]): void {
  if (applied.includes(1) || !MIGRATIONS.some((m) => m.compactAfter && applied.includes(m.version))) return;
  try {
    if ((db.prepare('SELECT count(*) FROM locks').pluck().get() as number) > 0) return;
    whileBusy(() => db.exec('VACUUM'));
  } catch {
    // Skipped: see the policy above.
  }
}

/**
 * Opens the state read-only; a database an older reelpipe left (below SCHEMA_VERSION) is
 * migrated first, once, since these queries need its columns (a run would do the same).
 */
export function openStateDbCurrent(dbPath: string): Database.Database | undefined {
  const db = openStateDbReadOnly(dbPath);
  if (!db) return db;
  const versioned = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'").get();
  const version = versioned ? ((db.prepare('SELECT max(version) FROM schema_version').pluck().get() as number | null) ?? 0) : 0;
  if (version >= SCHEMA_VERSION) return db;
  db.close();
  openStateDb(dbPath).close();
  return openStateDbReadOnly(dbPath);
}
