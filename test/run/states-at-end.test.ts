import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { StatesAtEnd, STATE_PAGE } from '../../src/run/states-at-end.js';
import { openStore, type Store } from '../../src/state/index.js';
import { ManualClock } from '../../src/util/clock.js';
import { bring, MANIFEST, newJob } from '../state/conformance/harness.js';

/** A run's end reads the plan's states a page at a time, on a real SQLite file: more jobs than one page. */
const JOBS = STATE_PAGE + 500;
const keyOf = (i: number) => `job-${String(i).padStart(5, '0')}`;

let dir: string;
let store: Store;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'reelpipe-states-at-end-'));
  store = await openStore(join(dir, 'state.db'), new ManualClock(1_000));
  // One job of another version of the manifest (not in the plan) beside the plan's.
  await store.syncPlan(MANIFEST, [...Array.from({ length: JOBS }, (_, i) => newJob(keyOf(i))), newJob('gone')]);
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("a run's end, read a page at a time", () => {
  test('counts every job of the plan, keeps the rows of those not downloaded only, and knows each status and cost by place', async () => {
    await bring(store, keyOf(0), 'downloaded', { creditsUsed: 7 });
    await bring(store, keyOf(STATE_PAGE + 10), 'downloaded');
    await bring(store, keyOf(3), 'in_doubt');
    await bring(store, keyOf(JOBS - 1), 'failed', { creditsUsed: 2 });
    await bring(store, 'gone', 'downloaded');
    const places = new Map(Array.from({ length: JOBS }, (_, i) => [keyOf(i), i]));
    const states = await StatesAtEnd.read(store, (key) => places.get(key), JOBS);

    expect(states.counts).toEqual({ downloaded: 2, in_doubt: 1, failed: 1, planned: JOBS - 4 });
    expect(states.kept.size).toBe(JOBS - 2);
    expect(states.kept.has(keyOf(0))).toBe(false);
    expect(states.kept.has('gone')).toBe(false);
    expect(states.get(keyOf(0))).toEqual({ key: keyOf(0), status: 'downloaded', remoteId: null, failedReason: null });
    expect(states.get(keyOf(3))).toMatchObject({ status: 'in_doubt', remoteId: null });
    expect(states.get(keyOf(JOBS - 1))).toMatchObject({ status: 'failed', failedReason: 'the service failed it' });
    expect(states.get('gone')).toBeUndefined();
    expect([states.usedOf(keyOf(0)), states.usedOf(keyOf(JOBS - 1)), states.usedOf(keyOf(1)), states.usedOf('gone')]).toEqual([7, 2, null, null]);
    expect(states.anyUsed).toBe(true);
  });

  test('a job the plan has but the state does not is no row: planned, as standingOf reads it', async () => {
    const states = await StatesAtEnd.read(store, (key) => (key === 'unrecorded' ? JOBS : undefined), JOBS + 1);
    expect(states.get('unrecorded')).toBeUndefined();
    expect(states.counts).toEqual({});
    expect(states.anyUsed).toBe(false);
  });
});
