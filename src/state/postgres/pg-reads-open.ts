import { PgDb, type Tx } from './pg-connection.js';
import { newerDatabase } from './pg-faults.js';
import { migrateDb, PG_SCHEMA_VERSION } from './pg-migrate.js';

/**
 * How the reader (pg-reader.ts) meets the state at a PostgreSQL address: one pool per address for
 * the whole process, made by its first read and kept (a command reads the state several times: a
 * pool and a schema check for each read cost a finished 10,000-job re-run most of its time). The
 * pool lets the process exit whenever it is idle (`exitOnIdle`), so no command has to close it;
 * one whose first connection failed is not kept, and the next read tries again.
 *
 * A database with no reelpipe schema yet (made, never migrated) reads as empty and is left as it
 * is; one a newer reelpipe wrote is refused (exit 2), as SQLite's is. One an older reelpipe left
 * is migrated first by the reads that need its columns (`older: 'migrate'`), as SQLite's
 * openStateDbCurrent does — a run would do the same. A schema found current is not asked about
 * again by the same process.
 */

const pools = new Map<string, Promise<PgDb>>();
const current = new WeakSet<PgDb>();

function readerDb(location: string): Promise<PgDb> {
  let db = pools.get(location);
  if (!db) {
    db = PgDb.connect(location, '--state', undefined, { exitOnIdle: true });
    pools.set(location, db);
    db.catch(() => pools.delete(location));
  }
  return db;
}

/** What a read does with a state an older reelpipe left: migrate it first, or read it as it is (it needs no newer column). */
export type Older = 'migrate' | 'as-is';

/**
 * `read` over one snapshot of committed state (REPEATABLE READ, READ ONLY: its statements agree
 * with each other, and it takes no lock a run would wait on); `none` without a schema.
 */
export async function readPg<T>(location: string, none: T, read: (tx: Tx) => Promise<T>, older: Older = 'migrate'): Promise<T> {
  const db = await readerDb(location);
  if (!current.has(db)) {
    const version = await schemaVersion(db);
    if (version === null) return none;
    if (version > PG_SCHEMA_VERSION) throw newerDatabase(db.shown, version, PG_SCHEMA_VERSION);
    if (version < PG_SCHEMA_VERSION && older === 'migrate') await migrateDb(db);
    if (version === PG_SCHEMA_VERSION || older === 'migrate') current.add(db);
  }
  return db.tx(async (tx) => {
    await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
    return read(tx);
  }, { doing: 'reading the state' });
}

/** `write` in one transaction on the state at `location`, migrated first (made, if the database is empty). */
export async function writePg<T>(location: string, write: (tx: Tx) => Promise<T>): Promise<T> {
  const db = await PgDb.connect(location);
  try {
    await migrateDb(db);
    return await db.tx(write);
  } finally {
    await db.close();
  }
}

/** UNDEFINED_TABLE: the database has no schema_version (no reelpipe schema yet). */
const NO_TABLE = '42P01';

/** The newest schema version recorded, or null when there is none yet. */
async function schemaVersion(db: PgDb): Promise<number | null> {
  try {
    const [row] = await db.query<{ version: number | null }>('SELECT max(version) AS version FROM schema_version');
    return row?.version ?? null;
  } catch (error) {
    if ((error as { code?: string }).code === NO_TABLE) return null;
    throw error;
  }
}
