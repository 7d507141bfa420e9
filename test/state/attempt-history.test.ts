import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { StateStore, readAttemptsByJob } from '../../src/state/index.js';
import { ManualClock } from '../../src/util/clock.js';

let dir: string;
let store: StateStore;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'reelpipe-attempts-'));
  store = StateStore.open(join(dir, 'state.db'), new ManualClock());
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const JOB = { key: 's:1', step: 's', kind: 'ai_short' as const, outputName: 'one', request: { script: 'Hi' }, creditsEstimated: 5, priority: 7 };

/** One attempt of the job, sent and answered as `remoteId`, its remote job then failing for `reason` at a cost of 5. */
function failedAttempt(remoteId: string, reason: string): void {
  const id = store.insertAttempt(JOB.key, JOB.request);
  store.transition(JOB.key, 'submitting', { creditsReserved: 5 }, 'job:intent');
  store.closeAttempt(id, 'answered', { remoteId });
  store.transition(JOB.key, 'submitted', { remoteId }, 'job:answered');
  store.transition(JOB.key, 'failed', { creditsUsed: 5, creditsReserved: 0, failedReason: reason }, 'job:failed');
}

describe('each attempt keeps how its remote job ended, and the run that retried it', () => {
  test('the plan records the priority on the job row', () => {
    store.syncPlan('m.yaml', [JOB]);
    expect(store.db.prepare('SELECT priority FROM jobs WHERE key = ?').pluck().get(JOB.key)).toBe(7);
    // Refreshed while planned.
    store.syncPlan('m.yaml', [{ ...JOB, priority: 2 }]);
    expect(store.db.prepare('SELECT priority FROM jobs WHERE key = ?').pluck().get(JOB.key)).toBe(2);
  });

  test('retries are counted per run, from the state: a new run starts from none', () => {
    store.syncPlan('m.yaml', [JOB]);
    const first = store.startRun('m.yaml', 'host', 1, null);
    failedAttempt('r-1', 'Render failed.');
    store.retryInRun(JOB.key);
    failedAttempt('r-2', 'Render failed again.');
    store.retryInRun(JOB.key);
    failedAttempt('r-3', 'Still failing.');
    expect(store.retriesInRun(JOB.key)).toBe(2);
    const second = store.startRun('m.yaml', 'host', 1, null);
    expect(store.retriesInRun(JOB.key)).toBe(0);
    const attempts = readAttemptsByJob(store.db, 'm.yaml').get(JOB.key) ?? [];
    expect(attempts.map((a) => [a.remoteId, a.ended, a.endedReason, a.retriedInRun, a.charge?.credits])).toEqual([
      ['r-1', 'failed', 'Render failed.', first, 5],
      ['r-2', 'failed', 'Render failed again.', first, 5],
      ['r-3', 'failed', 'Still failing.', null, 5],
    ]);
    expect(second).toBeGreaterThan(first);
    // The retried attempts' charges lapsed, still counted: the job's own figure is every attempt's.
    expect(store.money([JOB]).byJob.get(JOB.key)).toBe(15);
  });
});
