import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
