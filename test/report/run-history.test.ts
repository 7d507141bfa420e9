import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { readRunHistory } from '../../src/report/run-history.js';
import { acquireLock, StateStore } from '../../src/state/index.js';
import { ManualClock } from '../../src/util/clock.js';

const MANIFEST = '/p/m.yaml';
let dir: string;
let dbPath: string;
let store: StateStore;
const clock = new ManualClock(Date.UTC(2026, 10, 23));
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'reelpipe-runs-'));
  dbPath = join(dir, 'state', 'reelpipe.db');
  store = StateStore.open(dbPath, clock).useManifest(MANIFEST);
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('past runs of a manifest', () => {
  test('a finished run: its outcome, its jobs per state in the vocabulary, and the credits it counted', () => {
    store.startRun(MANIFEST, hostname(), process.pid, null);
    clock.advance(60_000);
    store.finishRun('JOBS_FAILED', { counts: { downloaded: 2, done: 1, failed: 1, rejected: 1 }, credits: { spent: 40, thisRun: 12.5 } });
    const { runs, total } = readRunHistory(dbPath, MANIFEST, 20);
    expect(total).toBe(1);
    expect(runs).toEqual([
      { id: 1, startedAt: Date.UTC(2026, 10, 23), finishedAt: Date.UTC(2026, 10, 23, 0, 1), state: 'finished', outcome: 'JOBS_FAILED', host: hostname(), pid: process.pid, jobs: { done: 2, finished: 1, failed: 1, rejected: 1 }, credits: 12.5, refusal: null },
    ]);
  });

  test.each([
    ['holding its lock, its process alive: running', () => process.pid, 'running'],
    ['its lock left by a dead process on this host (kill -9): died', () => 2 ** 22 + 12345, 'died'],
  ])('a run with no end %s', (_, pid, state) => {
    store.startRun(MANIFEST, hostname(), pid(), null);
    const lock = acquireLock(store, { name: MANIFEST, pid: pid(), heartbeatMs: 3_600_000 });
    expect(readRunHistory(dbPath, MANIFEST, 20).runs[0]).toMatchObject({ state, finishedAt: null, outcome: null, jobs: null, credits: null });
    lock.release();
  });

  test('a run with no end and no lock: died', () => {
    store.startRun(MANIFEST, hostname(), process.pid, null);
    expect(readRunHistory(dbPath, MANIFEST, 20).runs[0]!.state).toBe('died');
  });

  test('newest first, at most `limit`, with the count of all; other manifests\' runs are not listed', () => {
    for (let i = 0; i < 5; i++) {
      store.startRun(i === 2 ? '/p/other.yaml' : MANIFEST, hostname(), process.pid, null);
      store.finishRun('OK', {});
    }
    const { runs, total } = readRunHistory(dbPath, MANIFEST, 2);
    expect([runs.map((r) => r.id), total]).toEqual([[5, 4], 4]);
    expect(readRunHistory(join(dir, 'none.db'), MANIFEST, 2)).toEqual({ runs: [], total: 0, refusedHidden: 0 });
  });

  test('a refused start is left out and counted, unless all are asked for: then listed as refused, with why', () => {
    store.startRun(MANIFEST, hostname(), process.pid, null);
    store.finishRun('OK', {});
    store.startRun(MANIFEST, hostname(), process.pid, null);
    store.finishRun('LOCKED', {}, 'another run (pid 7 on night) is working on /p/m.yaml; try again when it has finished');
    const shown = readRunHistory(dbPath, MANIFEST, 20);
    expect([shown.runs.map((r) => r.id), shown.total, shown.refusedHidden]).toEqual([[1], 1, 1]);
    const all = readRunHistory(dbPath, MANIFEST, 20, true);
    expect([all.total, all.refusedHidden]).toEqual([2, 0]);
    expect(all.runs[0]).toMatchObject({ id: 2, state: 'refused', outcome: 'LOCKED', refusal: expect.stringMatching(/^another run \(pid 7/) });
  });
});
