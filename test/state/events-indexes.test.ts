import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { openStore, stateAt, type Store } from '../../src/state/index.js';
import { ManualClock } from '../../src/util/clock.js';

const MANIFEST = 'p/m';
let dir: string;
let dbPath: string;
let store: Store;
const clock = new ManualClock(Date.UTC(2026, 10, 28));
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'reelpipe-events-indexes-'));
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

test("migration 23 gives a state from before it the events' indexes in write order, and every read of its runs answers as before", async () => {
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
