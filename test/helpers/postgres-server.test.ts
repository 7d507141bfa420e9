import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, test } from 'vitest';
import { freshPgDatabase, pgRows, pgServerUrl, restartPgServer, type PgDatabase } from './pg-database.js';
import { findPgBin, PG_TEMPLATE, startPostgres } from './postgres-server.js';

/** Runs `sql` on a connection of its own and returns the rows. */
const query = <R>(url: string, sql: string): Promise<R[]> => pgRows<R>(sql, url);

describe('findPgBin', () => {
  const root = mkdtempSync(join(tmpdir(), 'reelpipe-pgbin-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  /** A fake server folder at `dir` holding the given binaries. */
  const folder = (dir: string, names = ['pg_ctl', 'initdb', 'postgres']) => {
    mkdirSync(dir, { recursive: true });
    for (const name of names) writeFileSync(join(dir, name), '');
    return dir;
  };
  const lib = join(root, 'lib');
  folder(join(lib, '9.6', 'bin'));
  folder(join(lib, '13', 'bin'));
  folder(join(lib, '15', 'bin'));
  folder(join(lib, '16', 'bin'), ['pg_ctl']);
  const onPath = folder(join(root, 'path-bin'));

  test.each([
    { case: 'the newest version by number, one with all three binaries', roots: [lib], path: onPath, found: join(lib, '15', 'bin') },
    { case: 'the PATH when no versioned folder has a server', roots: [join(root, 'none')], path: `/nowhere:${onPath}`, found: onPath },
  ])('finds $case', ({ roots, path, found }) => {
    expect(findPgBin(roots, path)).toBe(found);
  });

  test('throws saying how to install one when there is none', () => {
    expect(() => findPgBin([join(root, 'none')], '/nowhere')).toThrow(/not found .*apt-get install -y postgresql-15/);
  });
});

describe("the test run's server", () => {
  const made: PgDatabase[] = [];
  afterAll(async () => {
    await Promise.all(made.map((db) => db.drop()));
  });
  const fresh = async () => {
    const db = await freshPgDatabase();
    made.push(db);
    return db;
  };

  test('answers select 1', async () => {
    expect(await query(pgServerUrl(), 'SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });

  test('holds the template, migrated and closed to connections', async () => {
    const rows = await query(pgServerUrl(), `SELECT datistemplate, datallowconn FROM pg_database WHERE datname = '${PG_TEMPLATE}'`);
    expect(rows).toEqual([{ datistemplate: true, datallowconn: false }]);
    const db = await fresh();
    expect(await query(db.url, "SELECT count(*)::int AS n FROM schema_version")).toEqual([{ n: expect.any(Number) }]);
  });

  test('gives each caller a database of its own', async () => {
    const [a, b] = await Promise.all([fresh(), fresh()]);
    expect(a.url).not.toBe(b.url);
    await query(a.url, 'CREATE TABLE only_in_a (x int); INSERT INTO only_in_a VALUES (1)');
    expect(await query(a.url, "SELECT to_regclass('only_in_a') IS NOT NULL AS there")).toEqual([{ there: true }]);
    expect(await query(b.url, "SELECT to_regclass('only_in_a') IS NOT NULL AS there")).toEqual([{ there: false }]);
  });

  test('drop removes the database, even with a connection still open to it', async () => {
    const db = await freshPgDatabase();
    const open = new pg.Client({ connectionString: db.url });
    open.on('error', () => undefined);
    await open.connect();
    await db.drop();
    expect(await query(pgServerUrl(), `SELECT count(*)::int AS n FROM pg_database WHERE datname = '${db.name}'`)).toEqual([{ n: 0 }]);
    await expect(query(db.url, 'SELECT 1')).rejects.toMatchObject({ code: '3D000' });
    await open.end().catch(() => undefined);
  });
});

describe('a cluster of its own', () => {
  test('restartPgServer restarts it: open connections are cut, new ones work; stop removes it', async () => {
    const server = await startPostgres();
    try {
      expect(server.url).toBe(`postgres://postgres@127.0.0.1:${server.port}/postgres`);
      const startedAt = 'SELECT pg_postmaster_start_time()::text AS at';
      const [before] = await query<{ at: string }>(server.url, startedAt);
      const open = new pg.Client({ connectionString: server.url });
      open.on('error', () => undefined);
      await open.connect();

      await restartPgServer('fast', server);

      await expect(open.query('SELECT 1')).rejects.toThrow();
      const [after] = await query<{ at: string }>(server.url, startedAt);
      expect(after?.at).not.toBe(before?.at);
      await open.end().catch(() => undefined);
    } finally {
      await server.stop();
    }
    expect(existsSync(server.dataDir)).toBe(false);
    await expect(query(server.url, 'SELECT 1')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});
