import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { LocalFaultError, StateMismatchError } from '../../../src/errors.js';
import { openStateDb, type StateReader } from '../../../src/state/index.js';
import { PgDb } from '../../../src/state/postgres/pg-connection.js';
import { pgReader } from '../../../src/state/postgres/pg-reader.js';
import { sqliteReader } from '../../../src/state/sqlite/sqlite-reader.js';
import { ManualClock } from '../../../src/util/clock.js';
import { freshPgDatabase, type PgDatabase } from '../../helpers/pg-database.js';
import { FIXTURE, insertOf, MANIFEST, metaUpdates, PLAN_JOBS } from './reader-fixture.js';

/**
 * The StateReader on PostgreSQL answers as the one on SQLite: one state (reader-fixture.ts) is
 * written by SQL into an SQLite file and a PostgreSQL database, and every read of both readers is
 * compared — values, and the order of every list and map.
 */
let dir: string;
const databases: PgDatabase[] = [];
afterAll(async () => {
  for (const db of databases) await db.drop();
  rmSync(dir, { recursive: true, force: true });
});
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'reelpipe-pg-reader-'));
});

async function database(): Promise<string> {
  const db = await freshPgDatabase();
  databases.push(db);
  return db.url;
}

/** Statements on the database at `url`, on a connection of their own. */
async function onPg<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

function onSqlite<T>(path: string, use: (db: Database.Database) => T): T {
  const db = openStateDb(path);
  try {
    return use(db);
  } finally {
    db.close();
  }
}

/** The fixture in a new SQLite file and a new PostgreSQL database, and a reader of each. */
async function bothFilled(): Promise<{ sqlite: StateReader; postgres: StateReader; url: string }> {
  const path = join(dir, `filled-${databases.length}.db`);
  onSqlite(path, (db) => {
    for (const [table, rows] of FIXTURE) for (const row of rows) {
      const { sql, values } = insertOf(table, row, () => '?');
      db.prepare(sql).run(...values);
    }
    for (const { sql, values } of metaUpdates(() => '?')) db.prepare(sql).run(...values);
  });
  const url = await database();
  await onPg(url, async (client) => {
    for (const [table, rows] of FIXTURE) for (const row of rows) {
      const { sql, values } = insertOf(table, row, (n) => `$${n}`);
      await client.query(sql, values);
    }
    for (const { sql, values } of metaUpdates((n) => `$${n}`)) await client.query(sql, values);
    // Ids were given: the next ones the database hands out follow them.
    for (const table of ['runs', 'events', 'attempts', 'charges', 'hook_runs']) {
      await client.query(`SELECT setval(pg_get_serial_sequence('${table}', 'id'), (SELECT max(id) FROM ${table}))`);
    }
  });
  return { sqlite: sqliteReader(path), postgres: pgReader(url), url };
}

/** `value` with every Map and Set spelled out as entries in their order, and functions left out: what toEqual then compares in order. */
function inOrder(value: unknown): unknown {
  if (value instanceof Map) return { map: [...value].map(([k, v]) => [k, inOrder(v)]) };
  if (value instanceof Set) return { set: [...value].map(inOrder) };
  if (Array.isArray(value)) return value.map(inOrder);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).filter(([, v]) => typeof v !== 'function').map(([k, v]) => [k, inOrder(v)]));
  }
  return value;
}

/** `map` by key: for the maps whose order is the store's own (a scan's), which every caller looks up by key. */
const byKey = <V>(map: Map<string, V> | null | undefined) => map && new Map([...map].sort(([a], [b]) => (a < b ? -1 : 1)));

/** Every read of the StateReader a command makes, of `reader`, for the fixture's manifest and plan. */
async function everyRead(reader: StateReader, manifest = MANIFEST): Promise<Record<string, unknown>> {
  const money = await reader.jobMoney(manifest, PLAN_JOBS);
  const identity = await reader.identity(manifest);
  const facts = await reader.facts(manifest, PLAN_JOBS, { rows: true, money: true });
  // SQLite reads files and attempts in its tables' order when the manifest is most of its state (sqlite/table-order.ts).
  const byJobKey = (read: typeof facts) => read && { ...read, rows: byKey(read.rows), outputs: byKey(read.outputs), attempts: byKey(read.attempts) };
  return {
    facts: byJobKey(facts),
    factsWithoutRows: byJobKey(await reader.facts(manifest, PLAN_JOBS, { rows: false, money: false })),
    runs: await reader.runs(manifest, 3, false),
    allRuns: await reader.runs(manifest, 10, true),
    run: await reader.run(manifest),
    runById: await reader.run(manifest, 1),
    runUnsummed: await reader.run(manifest, 3, false),
    missingRun: await reader.run(manifest, 99),
    lastWork: await reader.lastWork(manifest),
    hookRuns: await reader.hookRuns(manifest),
    inDoubt: await reader.inDoubt(manifest),
    identity: { ...identity, path: 'where' },
    jobStatuses: byKey(await reader.jobStatuses(manifest)),
    jobMoney: { ...money, jobs: [...PLAN_JOBS.map((j) => j.key), 'old-a', 'nope'].map((key) => money.job(key)) },
    earlierRequests: await reader.earlierRequests(manifest, PLAN_JOBS),
    cachedCatalogue: await reader.cachedCatalogue('https://svc.example', 'styles'),
    noCatalogue: await reader.cachedCatalogue('https://svc.example', 'voices'),
    plannedItems: await reader.plannedItems(manifest),
  };
}

describe('the PostgreSQL reader answers as the SQLite reader', () => {
  test('every read of one state: the same values, in the same order', async () => {
    const { sqlite, postgres } = await bothFilled();
    const [expected, actual] = [inOrder(await everyRead(sqlite)), inOrder(await everyRead(postgres))];
    for (const read of Object.keys(expected as object)) {
      expect((actual as Record<string, unknown>)[read], read).toEqual((expected as Record<string, unknown>)[read]);
    }
    // The fixture reaches what it is meant to: a sample of the answers, as the commands see them.
    const facts = await postgres.facts(MANIFEST, PLAN_JOBS, { rows: true, money: true });
    expect(facts?.money?.totals).toMatchObject({ used: { known: 12.75, unknown: 5 }, apart: { superseded: 2.2, removed: 1.05, forgotten: 0.7 }, refunded: { total: 1.1, derived: 1.1 } });
    expect([...(facts?.outputs.keys() ?? [])]).toEqual(['Z-upper', 'a', 'd2']);
    expect(facts?.earlier.get('a')).toEqual(['Old-a0', 'old-a']);
    expect(await postgres.plannedItems(MANIFEST)).toEqual(new Map([['req-other', [['s9']]], ['req-all', [['s1', 's2'], ['s3']]]]));
    expect((await postgres.inDoubt(MANIFEST)).map(({ row, attempt }) => [row.key, row.result, attempt?.id])).toEqual([['Z-upper', null, undefined], ['b', { legacy: true }, 6]]);
    expect(await postgres.lastWork(MANIFEST)).toMatchObject({ newest: { id: 4, jobs: 0 }, worked: { id: 3, jobs: 2 } });
    // A run's charges summed by `run`, or left to the caller, who has every run's from the facts' money.
    const run3 = await postgres.run(MANIFEST, 3);
    expect(run3 && 'run' in run3 && run3.charged).toEqual(facts?.money?.runs.get(3));
    expect(run3 && 'run' in run3 && run3.charged?.known).toBeGreaterThan(0);
    const unsummed = await postgres.run(MANIFEST, 3, false);
    expect(unsummed && 'run' in unsummed && { keys: unsummed.jobKeys, charged: unsummed.charged }).toEqual({ keys: run3 && 'run' in run3 && run3.jobKeys, charged: undefined });
  });

  test('a manifest the state does not know reads as empty in both', async () => {
    const { sqlite, postgres } = await bothFilled();
    expect(inOrder(await everyRead(postgres, 'proj/nobody'))).toEqual(inOrder(await everyRead(sqlite, 'proj/nobody')));
  });

  test('a database with no schema yet reads as a missing SQLite file does, and is left without one', async () => {
    const url = await database();
    await onPg(url, (client) => client.query('DROP SCHEMA public CASCADE; CREATE SCHEMA public'));
    const postgres = pgReader(url);
    const sqlite = sqliteReader(join(dir, 'missing', 'state.db'));
    expect(inOrder(await everyRead(postgres))).toEqual(inOrder(await everyRead(sqlite)));
    expect(await postgres.identity(MANIFEST)).toEqual({ id: '', path: postgres.location, createdAt: 'at an unknown time', jobsKnown: 0 });
    const tables = await onPg(url, (client) => client.query("SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'"));
    expect(tables.rows[0]).toEqual({ n: 0 });
  });

  test('the two writes migrate a database with no schema first, and write what SQLite writes', async () => {
    const url = await database();
    await onPg(url, (client) => client.query('DROP SCHEMA public CASCADE; CREATE SCHEMA public'));
    const path = join(dir, 'writes.db');
    onSqlite(path, () => undefined);
    const clock = new ManualClock(5_000);
    const start = { manifest: MANIFEST, from: '/x/shorts.yaml', host: 'h', pid: 7, outcome: 'E_BUDGET', refusal: 'over the budget' };
    for (const reader of [sqliteReader(path), pgReader(url)]) {
      await reader.cacheCatalogue('https://svc.example', 'styles', [{ id: 's1' }], 4_000);
      await reader.cacheCatalogue('https://svc.example', 'styles', [{ id: 's2' }], 4_500);
      expect(await reader.recordRefusedStart(start, clock)).toBe(true);
    }
    onSqlite(path, (db) => metaUpdates(() => '?').forEach(({ sql, values }) => db.prepare(sql).run(...values)));
    await onPg(url, async (client) => {
      for (const { sql, values } of metaUpdates((n) => `$${n}`)) await client.query(sql, values);
    });
    const [sqlite, postgres] = [sqliteReader(path), pgReader(url)];
    expect(await postgres.cachedCatalogue('https://svc.example', 'styles')).toEqual({ service: 'https://svc.example', name: 'styles', fetchedAt: 4_500, body: [{ id: 's2' }] });
    expect(inOrder(await everyRead(postgres))).toEqual(inOrder(await everyRead(sqlite)));
    const events = 'SELECT at, run_id, manifest, job_key, type, data FROM events ORDER BY id';
    const db = await PgDb.connect(url);
    const pgEvents = await db.query<{ type: string }>(events).finally(() => db.close());
    expect(pgEvents).toEqual(onSqlite(path, (sqliteDb) => sqliteDb.prepare(events).all()));
    expect(pgEvents.map((e) => e.type)).toEqual(['run:started', 'run:finished']);
  });

  test('a database a newer reelpipe wrote is refused (exit 2)', async () => {
    const url = await database();
    await onPg(url, (client) => client.query("INSERT INTO schema_version (version, name, applied_at) VALUES (999, 'from the future', 0)"));
    await expect(pgReader(url).facts(MANIFEST, PLAN_JOBS, { rows: true, money: true })).rejects.toThrow(StateMismatchError);
    await expect(pgReader(url).identity(MANIFEST)).rejects.toThrow(/schema version 999, written by a newer reelpipe/);
  });

  test('an unreachable database ends the read inside 10 s as a local fault (exit 74), its password unsaid', async () => {
    const started = Date.now();
    const read = pgReader('postgres://someone:s3cret-pw@127.0.0.1:1/reelpipe').jobStatuses(MANIFEST);
    const error = (await read.then(() => new Error('read'), (e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(LocalFaultError);
    expect(error.message).toContain('postgres://someone@127.0.0.1:1/reelpipe');
    expect(error.message).not.toContain('s3cret-pw');
    expect(Date.now() - started).toBeLessThan(10_000);
  }, 15_000);
});
