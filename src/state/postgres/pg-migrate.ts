import { MIGRATIONS, type Migration } from '../sqlite/migrations.js';
import { PgDb, type Tx } from './pg-connection.js';
import { newerDatabase } from './pg-faults.js';
import { PG_BASELINE, PG_BASELINE_VERSION } from './pg-schema.js';

/** Any 64-bit number of our own: the advisory lock every reelpipe takes to migrate a database. */
const MIGRATION_LOCK = 0x7265656c_7069;

/** The PostgreSQL text of every migration after the baseline (each carries both dialects). */
export function postgresMigrations(migrations: readonly Migration[] = MIGRATIONS): { version: number; name: string; sql: string }[] {
  return migrations
    .filter((m) => m.version > PG_BASELINE_VERSION)
    .map((m) => {
      if (m.postgres === undefined) throw new Error(`migration ${m.version} (${m.name}) has no PostgreSQL text: every migration after ${PG_BASELINE_VERSION} needs both`);
      return { version: m.version, name: m.name, sql: m.postgres };
    });
}

/** The newest schema this build knows (the same number in both stores). */
export const PG_SCHEMA_VERSION = Math.max(PG_BASELINE_VERSION, ...MIGRATIONS.map((m) => m.version));

/**
 * Brings the database up to this build's schema, once, whoever gets there first: every process
 * opening the state takes one advisory lock inside one transaction, reads the versions recorded,
 * and applies what is missing (the baseline on an empty database). A second process waits for the
 * lock, then finds nothing to do. A database newer than this build is refused (exit 2).
 */
export async function migrateDb(db: PgDb): Promise<number[]> {
  return db.tx(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await tx.query('CREATE TABLE IF NOT EXISTS schema_version (version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)');
    const applied = new Set((await tx.query<{ version: number }>('SELECT version FROM schema_version')).map((r) => r.version));
    const newest = Math.max(0, ...applied);
    if (newest > PG_SCHEMA_VERSION) throw newerDatabase(db.shown, newest, PG_SCHEMA_VERSION);
    const done: number[] = [];
    if (!applied.has(PG_BASELINE_VERSION)) {
      await tx.query(PG_BASELINE);
      await record(tx, PG_BASELINE_VERSION, `baseline: SQLite's schema ${PG_BASELINE_VERSION}`);
      done.push(PG_BASELINE_VERSION);
    }
    for (const migration of postgresMigrations()) {
      if (applied.has(migration.version)) continue;
      await tx.query(migration.sql);
      await record(tx, migration.version, migration.name);
      done.push(migration.version);
    }
    return done;
  }, { durable: true, doing: 'migrating the state' });
}

/** Connects to the state at `location` and brings it to this build's schema; the connection is closed if that fails. */
export async function openMigrated(location: string): Promise<PgDb> {
  const db = await PgDb.connect(location);
  try {
    await migrateDb(db);
  } catch (error) {
    await db.close();
    throw error;
  }
  return db;
}

/** Opens the state at `url`, migrates it to the current schema, and closes it (tests' template databases). */
export async function migratePostgres(url: string): Promise<void> {
  await (await openMigrated(url)).close();
}

async function record(tx: Tx, version: number, name: string): Promise<void> {
  await tx.query("INSERT INTO schema_version (version, name, applied_at) VALUES ($1, $2, (extract(epoch from clock_timestamp()) * 1000)::bigint)", [version, name]);
}
