import { afterAll, expect, test } from 'vitest';
import { StateMismatchError, UsageError } from '../../../src/errors.js';
import { PgDb } from '../../../src/state/postgres/pg-connection.js';
import { migrateDb, PG_SCHEMA_VERSION } from '../../../src/state/postgres/pg-migrate.js';
import { pgRows, pgServerUrl } from '../../helpers/pg-database.js';
import { databaseUrl } from '../../helpers/postgres-server.js';

/** Migrations on PostgreSQL: once, whoever gets there first; a newer database refused; a bad address located. */
const made: string[] = [];
const admin = (sql: string) => pgRows(sql);
/** An empty database (not the migrated template): what a new state starts as. */
async function emptyDatabase(): Promise<string> {
  const name = `reelpipe_empty_${process.pid}_${made.length}`;
  await admin(`CREATE DATABASE ${name}`);
  made.push(name);
  return databaseUrl(pgServerUrl(), name);
}
afterAll(async () => {
  for (const name of made) await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
});

test('four processes opening one new database at once: the schema is made once, and each finds it whole', async () => {
  const url = await emptyDatabase();
  const dbs = await Promise.all([1, 2, 3, 4].map(() => PgDb.connect(url)));
  const applied = await Promise.all(dbs.map((db) => migrateDb(db)));
  expect(applied.filter((versions) => versions.length > 0)).toHaveLength(1);
  expect(applied.flat()).toContain(PG_SCHEMA_VERSION);
  const [versions] = await dbs[0]!.query<{ n: number; newest: number }>('SELECT count(*) AS n, max(version) AS newest FROM schema_version');
  expect(versions).toEqual({ n: applied.flat().length, newest: PG_SCHEMA_VERSION });
  await Promise.all(dbs.map((db) => db.close()));
});

test('a database a newer reelpipe wrote is refused (exit 2), and left as it is', async () => {
  const url = await emptyDatabase();
  const db = await PgDb.connect(url);
  await migrateDb(db);
  await db.query("INSERT INTO schema_version (version, name, applied_at) VALUES (999, 'from the future', 0)");
  await expect(migrateDb(db)).rejects.toThrow(StateMismatchError);
  await expect(migrateDb(db)).rejects.toThrow(/is at schema version 999, written by a newer reelpipe \(this one knows up to \d+\)/);
  const [row] = await db.query<{ n: number }>('SELECT count(*) AS n FROM schema_version WHERE version = 999');
  expect(row!.n).toBe(1);
  await db.close();
});

test('a database that does not exist, or a user the server refuses: exit 2, saying which and what to do', async () => {
  const missing = databaseUrl(pgServerUrl(), 'reelpipe_no_such_database');
  await expect(PgDb.connect(missing)).rejects.toThrow(UsageError);
  await expect(PgDb.connect(missing)).rejects.toThrow(/the database does not exist \(create it first/);
  const stranger = pgServerUrl().replace('postgres@', 'nobody_here:pw@');
  const refused = (await PgDb.connect(stranger).then(() => new Error('connected'), (error: unknown) => error)) as Error;
  expect(refused).toBeInstanceOf(UsageError);
  expect(refused.message).not.toContain(':pw@');
});
