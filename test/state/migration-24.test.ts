import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { openStore, type Store } from '../../src/state/index.js';
import type { NewJob } from '../../src/state/job-change.js';
import { ManualClock } from '../../src/util/clock.js';

/**
 * Migration 24 (jobs.in_plan, jobs_ready): a state written before it has no plan marked, so its
 * jobs are in no run's plan until the next run records its own — and from then on that run claims
 * them as before, in the ready order, the plan's jobs and only them.
 */
const MANIFEST = 'p/m';
const clock = new ManualClock(Date.UTC(2026, 11, 1));
const job = (key: string, priority = 0): NewJob => ({ key, step: 's', kind: 'ai_short', outputName: key, request: { script: key }, creditsEstimated: 5, priority });
let dir: string;
let dbPath: string;
let store: Store;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'reelpipe-migration-24-'));
  dbPath = join(dir, 'reelpipe.db');
  store = (await openStore(dbPath, clock)).useManifest(MANIFEST);
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The file as migration 23 left it: no in_plan, no ready index. */
function asBeforeMigration24(): void {
  const db = new Database(dbPath);
  db.exec('DROP INDEX jobs_ready; ALTER TABLE jobs DROP COLUMN in_plan; DELETE FROM schema_version WHERE version = 24;');
  db.close();
}

const readyIndex = () => {
  const db = new Database(dbPath, { readonly: true });
  try {
    return db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name = 'jobs_ready'").pluck().all();
  } finally {
    db.close();
  }
};

test('a state from before it gets the ready index; its jobs are claimed once a run records its plan, in the ready order, and only the plan\'s', async () => {
  await store.syncPlan(MANIFEST, [job('a'), job('b', 3), job('c'), job('old')]);
  await store.recordIntent({ key: 'c', request: { script: 'c' }, hookToken: null, pathId: null, creditsReserved: 5 });
  await store.close();
  asBeforeMigration24();
  expect(readyIndex()).toEqual([]);
  store = (await openStore(dbPath, clock)).useManifest(MANIFEST);
  expect(readyIndex()).toEqual(['jobs_ready']);
  await store.startRun('h', 1, null);
  // No plan is marked yet: nothing to claim until a run records its own.
  expect(await store.claim(10)).toEqual([]);
  // The plan of today's run: `old` is no longer in it; `c`, sent before, still is.
  await store.syncPlan(MANIFEST, [job('a'), job('b', 3), job('c')]);
  expect(await store.claim(10)).toEqual([{ key: 'c', status: 'submitting' }, { key: 'b', status: 'planned' }, { key: 'a', status: 'planned' }]);
  expect(await store.claim(10)).toEqual([]);
});
