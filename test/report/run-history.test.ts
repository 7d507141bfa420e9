import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { readRunHistory } from '../../src/report/run-history.js';
import { acquireLock, openStore, type Store } from '../../src/state/index.js';
import { ManualClock } from '../../src/util/clock.js';

const MANIFEST = '/p/m.yaml';
let dir: string;
let dbPath: string;
let store: Store;
const clock = new ManualClock(Date.UTC(2026, 10, 23));
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'reelpipe-runs-'));
  dbPath = join(dir, 'state', 'reelpipe.db');
  store = (await openStore(dbPath, clock)).useManifest(MANIFEST);
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A job this run sends: its intent (the charge opens), its answer, and — with `cost` — its end at that cost. */
async function send(key: string, cost?: number | null): Promise<void> {
  await store.syncPlan(MANIFEST, [{ key, step: 's', kind: 'ai_short', outputName: key, request: { script: key }, creditsEstimated: 5 }]);
  await store.recordIntent({ key, request: { script: key }, hookToken: null, pathId: null, creditsReserved: 5 });
  await store.write({ key, move: { to: 'submitted', change: { remoteId: `r-${key}` }, type: 'job:answered' } });
  if (cost !== undefined) await store.write({ key, move: { to: 'done', change: { creditsUsed: cost, creditsReserved: 0 }, type: 'job:done' } });
}

describe('past runs of a manifest', () => {
  test('a finished run: its outcome, its jobs per state in the vocabulary, and what its jobs were charged', async () => {
    await store.useManifest(MANIFEST).startRun(hostname(), process.pid, null, '/srv/app/m.yaml');
    await send('a', 7.5);
    await send('b', 5);
    clock.advance(60_000);
    await store.finishRun('JOBS_FAILED', { counts: { downloaded: 2, done: 1, failed: 1, rejected: 1 } });
    const { runs, total } = await readRunHistory(dbPath, MANIFEST, 20);
    expect(total).toBe(1);
    expect(runs).toEqual([
      {
        id: 1, startedAt: Date.UTC(2026, 10, 23), finishedAt: Date.UTC(2026, 10, 23, 0, 1), state: 'finished', outcome: 'JOBS_FAILED', host: hostname(), pid: process.pid,
        manifestPath: '/srv/app/m.yaml', jobs: { done: 2, finished: 1, failed: 1, rejected: 1 }, credits: { used: 12.5, unknown: 0 }, refusal: null,
      },
    ]);
  });

  test('a killed run\'s jobs are charged to it when they settle, whichever run reads them: the runs sum to the whole', async () => {
    await store.useManifest(MANIFEST).startRun(hostname(), process.pid, null);
    await send('a', 5);
    await send('b');
    // Killed here: b was at the service, its cost unknown.
    expect((await readRunHistory(dbPath, MANIFEST, 20)).runs[0]!.credits).toEqual({ used: 5, unknown: 1 });
    await store.useManifest(MANIFEST).startRun(hostname(), process.pid, null);
    await store.write({ key: 'b', move: { to: 'done', change: { creditsUsed: 5, creditsReserved: 0 }, type: 'job:done' } });
    await send('c', 5);
    await store.finishRun('OK', {});
    const [second, first] = (await readRunHistory(dbPath, MANIFEST, 20)).runs;
    expect([first!.credits, second!.credits]).toEqual([{ used: 10, unknown: 0 }, { used: 5, unknown: 0 }]);
    expect((await store.money([])).totals.used).toEqual({ known: 15, unknown: 0 });
  });

  test.each([
    ['holding its lock, its process alive: running', () => process.pid, 'running'],
    ['its lock left by a dead process on this host (kill -9): died', () => 2 ** 22 + 12345, 'died'],
  ])('a run with no end %s', async (_, pid, state) => {
    await store.useManifest(MANIFEST).startRun(hostname(), pid(), null);
    const lock = await acquireLock(store, { name: MANIFEST, pid: pid(), heartbeatMs: 3_600_000 });
    expect((await readRunHistory(dbPath, MANIFEST, 20)).runs[0]).toMatchObject({ state, finishedAt: null, outcome: null, jobs: null, credits: { used: 0, unknown: 0 } });
    await lock.release();
  });

  test('a run with no end and no lock: died', async () => {
    await store.useManifest(MANIFEST).startRun(hostname(), process.pid, null);
    expect((await readRunHistory(dbPath, MANIFEST, 20)).runs[0]!.state).toBe('died');
  });

  test('newest first, at most `limit`, with the count of all; other manifests\' runs are not listed', async () => {
    for (let i = 0; i < 5; i++) {
      await store.useManifest(i === 2 ? '/p/other.yaml' : MANIFEST).startRun(hostname(), process.pid, null);
      await store.finishRun('OK', {});
    }
    const { runs, total } = await readRunHistory(dbPath, MANIFEST, 2);
    expect([runs.map((r) => r.id), total]).toEqual([[5, 4], 4]);
    expect(await readRunHistory(join(dir, 'none.db'), MANIFEST, 2)).toEqual({ runs: [], total: 0, refusedHidden: 0 });
  });

  test('a refused start is left out and counted, unless all are asked for: then listed as refused, with why', async () => {
    await store.useManifest(MANIFEST).startRun(hostname(), process.pid, null);
    await store.finishRun('OK', {});
    await store.useManifest(MANIFEST).startRun(hostname(), process.pid, null);
    await store.finishRun('LOCKED', {}, 'another run (pid 7 on night) is working on /p/m.yaml; try again when it has finished');
    const shown = await readRunHistory(dbPath, MANIFEST, 20);
    expect([shown.runs.map((r) => r.id), shown.total, shown.refusedHidden]).toEqual([[1], 1, 1]);
    const all = await readRunHistory(dbPath, MANIFEST, 20, true);
    expect([all.total, all.refusedHidden]).toEqual([2, 0]);
    expect(all.runs[0]).toMatchObject({ id: 2, state: 'refused', outcome: 'LOCKED', refusal: expect.stringMatching(/^another run \(pid 7/) });
  });
});
