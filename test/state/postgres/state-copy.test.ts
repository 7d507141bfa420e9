import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { COPIED_TABLES } from '../../../src/state/copy/state-tables.js';
import { openStore } from '../../../src/state/index.js';
import { REPO_ROOT, runCli } from '../../helpers/cli.js';
import { freshPgDatabase, type PgDatabase } from '../../helpers/pg-database.js';

/**
 * `reelpipe state copy FROM TO`, as a person runs it: a state made by a real run of the demo on
 * the sandbox, copied into PostgreSQL and back into a new SQLite file, arrives whole — every row
 * of every table the same as it left.
 */
let dir: string;
const databases: PgDatabase[] = [];
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'reelpipe-copy-'));
  // A project of its own: the demo's outputs folder is this test's, never the checkout's.
  cpSync(join(REPO_ROOT, 'examples'), join(dir, 'examples'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), '{}\n');
  const demo = await runCli(['run', 'examples/demo.yaml', '--sandbox', '--state', join(dir, 'demo.db')], { cwd: dir });
  expect(demo.exitCode, demo.stderr).toBe(0);
}, 60_000);
afterAll(async () => {
  for (const db of databases) await db.drop();
  rmSync(dir, { recursive: true, force: true });
});

async function database(): Promise<PgDatabase> {
  const db = await freshPgDatabase();
  databases.push(db);
  return db;
}

/** Every copied table of an SQLite state, each row as an object, in the table's order. */
function dump(path: string): Record<string, unknown[]> {
  const db = new Database(path, { readonly: true });
  try {
    return Object.fromEntries(COPIED_TABLES.map(({ table, order }) => [table, db.prepare(`SELECT * FROM ${table} ORDER BY ${order.join(', ')}`).all()]));
  } finally {
    db.close();
  }
}

describe('state copy', () => {
  test('SQLite → PostgreSQL → SQLite: every row of every table arrives as it left, and both sides are checked', async () => {
    const pg = await database();
    const there = await runCli(['state', 'copy', join(dir, 'demo.db'), pg.url.replace('postgres@', 'postgres:never-shown@')]);
    expect(there.exitCode, there.stderr).toBe(0);
    expect(there.stdout).toMatch(/rows: runs 1, jobs 9, attempts 9, .* \(the same on both sides\)/);
    expect(there.stdout).toContain('credits: 300 charged');
    expect(there.stdout + there.stderr).not.toContain('never-shown');
    const back = await runCli(['state', 'copy', pg.url, join(dir, 'back.db')]);
    expect(back.exitCode, back.stderr).toBe(0);
    expect(dump(join(dir, 'back.db'))).toEqual(dump(join(dir, 'demo.db')));
  }, 60_000);

  test('a TO that holds anything is refused (exit 2), and nothing is written to it', async () => {
    const pg = await database();
    expect((await runCli(['state', 'copy', join(dir, 'demo.db'), pg.url])).exitCode).toBe(0);
    const again = await runCli(['state', 'copy', join(dir, 'demo.db'), pg.url]);
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toMatch(/is not empty \(runs: 1 rows\): copy into a new, empty state/);
  }, 60_000);

  test('a FROM whose run lock is held is refused (exit 2), naming the holder', async () => {
    const locked = join(dir, 'locked.db');
    const copy = await runCli(['state', 'copy', join(dir, 'demo.db'), locked]);
    expect(copy.exitCode, copy.stderr).toBe(0);
    const store = await openStore(locked);
    await store.takeLock({ name: 'night.yaml', token: 't', pid: 4242, host: 'cron-1', pidNamespace: null, isAlive: () => true, heartbeatMs: 10_000, staleAfterMs: 60_000 });
    await store.close();
    const refused = await runCli(['state', 'copy', locked, join(dir, 'never.db')]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(/holds a run lock \(night\.yaml, pid 4242 on cron-1\)/);
    expect(existsSync(join(dir, 'never.db'))).toBe(false);
  }, 60_000);

  test('an unreachable database ends the copy with exit 74 inside 10 s, its password unsaid', async () => {
    const started = Date.now();
    const gone = await runCli(['state', 'copy', join(dir, 'demo.db'), 'postgres://reelpipe:s3cret@127.0.0.1:1/reelpipe']);
    expect(gone.exitCode).toBe(74);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(gone.stderr).toMatch(/postgres:\/\/reelpipe@127\.0\.0\.1:1\/reelpipe cannot be reached/);
    expect(gone.stderr).not.toContain('s3cret');
  }, 30_000);

  test('the copy leaves no table behind: its list is every table of the schema', async () => {
    const db = new Database(join(dir, 'demo.db'), { readonly: true });
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name <> 'schema_version'").pluck().all() as string[];
    db.close();
    expect(COPIED_TABLES.map((t) => t.table).sort()).toEqual(tables.sort());
  });
});
