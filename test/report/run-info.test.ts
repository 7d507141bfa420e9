import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { readLastWork, readRun } from '../../src/report/run-info.js';
import { openStore, stateAt, type Store } from '../../src/state/index.js';
import { ManualClock } from '../../src/util/clock.js';

const MANIFEST = 'p/m';
let dir: string;
let dbPath: string;
let store: Store;
const clock = new ManualClock(Date.UTC(2026, 10, 27));
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'reelpipe-run-info-'));
  dbPath = join(dir, 'state', 'reelpipe.db');
  store = (await openStore(dbPath, clock)).useManifest(MANIFEST);
  await store.syncPlan(MANIFEST, ['a', 'b', 'c'].map((key) => ({ key, step: 's', kind: 'ai_short', outputName: key, request: { script: key }, creditsEstimated: 5 })));
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A run that sends `keys` (none: a run that changed no job) and ends. */
async function runSending(...keys: string[]): Promise<void> {
  await store.startRun('host', 1, null);
  for (const key of keys) await store.recordIntent({ key, request: { script: key }, hookToken: null, pathId: null, creditsReserved: 5 });
  clock.advance(60_000);
  await store.finishRun('OK', {});
}

describe('the last work of a manifest, told from the newest run as read', () => {
  test('a newest run that changed jobs is both answers, as the state counts them', async () => {
    await runSending('a');
    await runSending('b', 'c');
    const newest = await readRun(dbPath, MANIFEST);
    const told = await readLastWork(dbPath, MANIFEST, newest);
    expect(told).toEqual(await stateAt(dbPath).lastWork(MANIFEST));
    expect(told).toMatchObject({ newest: { id: 2, jobs: 2, outcome: 'OK' }, worked: { id: 2, jobs: 2 } });
  });

  test('a newest run that changed none: the state finds the latest that did', async () => {
    await runSending('a', 'b');
    await runSending();
    const told = await readLastWork(dbPath, MANIFEST, await readRun(dbPath, MANIFEST));
    expect(told).toEqual(await stateAt(dbPath).lastWork(MANIFEST));
    expect(told).toMatchObject({ newest: { id: 2, jobs: 0 }, worked: { id: 1, jobs: 2 } });
  });

  test('without the newest run read (a report of an earlier run, or no run yet), the state answers', async () => {
    expect(await readLastWork(dbPath, MANIFEST, null)).toEqual({ newest: null, worked: null });
    await runSending('a');
    expect(await readLastWork(dbPath, MANIFEST)).toMatchObject({ newest: { id: 1, jobs: 1 }, worked: { id: 1, jobs: 1 } });
  });
});

describe("migration 23: the events' indexes in write order", () => {
  /** Every read of a manifest's runs: the newest, one by id, the list, the last work. */
  async function runReads() {
    const state = stateAt(dbPath);
    return { newest: await state.run(MANIFEST), first: await state.run(MANIFEST, 1), list: await state.runs(MANIFEST, 10, true), lastWork: await state.lastWork(MANIFEST) };
  }

  const eventsIndexes = () => {
    const db = new Database(dbPath, { readonly: true });
    try {
      return db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events' ORDER BY name").pluck().all();
    } finally {
      db.close();
    }
  };

  test('a state from before it gets them, and every read of its runs answers as before', async () => {
    await runSending('b', 'a');
    await runSending('c');
    await runSending();
    const before = await runReads();
    expect(before.lastWork).toMatchObject({ newest: { id: 3, jobs: 0 }, worked: { id: 2, jobs: 1 } });
    // In key order, whatever order the run changed them in.
    expect(before.first && 'run' in before.first && [...before.first.jobKeys]).toEqual(['a', 'b']);
    expect(before.list.rows.map((r) => r.id)).toEqual([3, 2, 1]);
    // The file as migration 22 left it: both events indexes keyed by job.
    await store.close();
    const db = new Database(dbPath);
    db.exec(`DROP INDEX events_by_run; DROP INDEX events_of_runs;
      CREATE INDEX events_by_run ON events (run_id, manifest, job_key); CREATE INDEX events_by_job ON events (manifest, job_key);
      DELETE FROM schema_version WHERE version = 23;`);
    db.close();
    expect(eventsIndexes()).toEqual(['events_by_job', 'events_by_run']);
    store = (await openStore(dbPath, clock)).useManifest(MANIFEST);
    expect(eventsIndexes()).toEqual(['events_by_run', 'events_of_runs']);
    expect(await runReads()).toEqual(before);
  });
});
