import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { openStore, readAttemptsByJob, type Store } from '../../src/state/index.js';
import { ManualClock } from '../../src/util/clock.js';
import { peek } from './peek.js';

let dir: string;
let store: Store;
/** The file as committed, read apart from the store. */
let db: Database.Database;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'reelpipe-attempts-'));
  store = await openStore(join(dir, 'state.db'), new ManualClock());
  db = peek(join(dir, 'state.db'));
});
afterEach(async () => {
  db.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const JOB = { key: 's:1', step: 's', kind: 'ai_short' as const, outputName: 'one', request: { script: 'Hi' }, creditsEstimated: 5, priority: 7 };

/** One attempt of the job, sent and answered as `remoteId`, its remote job then failing for `reason` at a cost of 5. */
async function failedAttempt(remoteId: string, reason: string): Promise<void> {
  const id = await store.recordIntent({ key: JOB.key, request: JOB.request, hookToken: null, pathId: null, creditsReserved: 5 });
  await store.write({ key: JOB.key, attempt: { id, state: 'answered', remoteId }, move: { to: 'submitted', change: { remoteId }, type: 'job:answered' } });
  await store.write({ key: JOB.key, move: { to: 'failed', change: { creditsUsed: 5, creditsReserved: 0, failedReason: reason }, type: 'job:failed' } });
}

describe('each attempt keeps how its remote job ended, and the run that retried it', () => {
  test('the plan records the priority on the job row', async () => {
    await store.syncPlan('m.yaml', [JOB]);
    expect(db.prepare('SELECT priority FROM jobs WHERE key = ?').pluck().get(JOB.key)).toBe(7);
    // Refreshed while planned.
    await store.syncPlan('m.yaml', [{ ...JOB, priority: 2 }]);
    expect(db.prepare('SELECT priority FROM jobs WHERE key = ?').pluck().get(JOB.key)).toBe(2);
  });

  test('retries are counted per run, from the state: a new run starts from none', async () => {
    await store.syncPlan('m.yaml', [JOB]);
    const first = await store.startRun('host', 1, null);
    await failedAttempt('r-1', 'Render failed.');
    await store.retryInRun(JOB.key);
    await failedAttempt('r-2', 'Render failed again.');
    await store.retryInRun(JOB.key);
    await failedAttempt('r-3', 'Still failing.');
    expect(await store.retriesInRun(JOB.key)).toBe(2);
    const second = await store.startRun('host', 1, null);
    expect(await store.retriesInRun(JOB.key)).toBe(0);
    const attempts = readAttemptsByJob(db, 'm.yaml').get(JOB.key) ?? [];
    expect(attempts.map((a) => [a.remoteId, a.ended, a.endedReason, a.retriedInRun, a.charge?.credits])).toEqual([
      ['r-1', 'failed', 'Render failed.', first, 5],
      ['r-2', 'failed', 'Render failed again.', first, 5],
      ['r-3', 'failed', 'Still failing.', null, 5],
    ]);
    expect(second).toBeGreaterThan(first);
    // The retried attempts' charges lapsed, still counted: the job's own figure is every attempt's.
    expect((await store.money([JOB])).byJob.get(JOB.key)).toBe(15);
  });
});
