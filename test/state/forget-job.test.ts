import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { StateStore, forgetJob, readEvents, type JobStatus } from '../../src/state/index.js';

let dir: string;
let store: StateStore;
const JOB = { key: 'shorts:abc', step: 'shorts', kind: 'ai_short' as const, request: { script: 'x' }, creditsEstimated: 5 };

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'reelpipe-forget-'));
  store = StateStore.open(join(dir, 'r.db'));
  store.syncPlan('m.yaml', [JOB]);
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Walks the job through the machine to `status`, with an attempt and an output on the way. */
function bring(status: JobStatus): void {
  const path: Record<JobStatus, JobStatus[]> = {
    planned: [],
    submitting: ['submitting'],
    in_doubt: ['submitting', 'in_doubt'],
    submitted: ['submitting', 'submitted'],
    running: ['submitting', 'submitted', 'running'],
    done: ['submitting', 'submitted', 'done'],
    downloaded: ['submitting', 'submitted', 'done', 'downloaded'],
    hook_failed: ['submitting', 'submitted', 'done', 'downloaded', 'hook_failed'],
    partly_failed: ['submitting', 'submitted', 'done', 'partly_failed'],
    failed: ['submitting', 'submitted', 'failed'],
    rejected: ['submitting', 'rejected'],
  };
  for (const to of path[status]) {
    if (to === 'submitting') store.insertAttempt(JOB.key, JOB.request);
    const change = to === 'submitted' ? { remoteId: 'r-1' } : to === 'done' ? { creditsUsed: 5, result: { id: 'r-1', status: 'done' } } : {};
    store.transition(JOB.key, to, change, 'job:status');
    if (to === 'done') store.setOutputs(JOB.key, ['https://cdn/x.mp4']);
  }
}

const count = (table: string) => store.db.prepare(`SELECT count(*) FROM ${table} WHERE manifest = ?`).pluck().get('m.yaml');

describe('forget', () => {
  test.each(['submitting', 'submitted', 'running', 'in_doubt'] as const)('a job %s (it exists at the service, or may) is refused and kept whole', (status) => {
    bring(status);
    expect(forgetJob(store, JOB.key, { user: 't' })).toMatchObject({ refused: { status } });
    expect(store.job(JOB.key)?.status).toBe(status);
    expect(count('attempts')).toBe(1);
    expect(readEvents(store.db, { type: 'job:forgotten' })).toEqual([]);
  });

  test.each(['planned', 'done', 'downloaded', 'failed', 'rejected'] as const)('a job %s is dropped: job, its last read, attempts, outputs', (status) => {
    bring(status);
    const result = forgetJob(store, JOB.key, { user: 't' });
    expect(result).toMatchObject({ forgotten: { key: JOB.key, status } });
    expect(store.job(JOB.key)).toBeUndefined();
    expect([count('jobs'), count('job_results'), count('attempts'), count('outputs')]).toEqual([0, 0, 0, 0]);
  });

  test('the event keeps what the record held (status, remote id, credits), and who forgot it', () => {
    bring('downloaded');
    forgetJob(store, JOB.key, { user: 'ops' });
    expect(readEvents(store.db, { type: 'job:forgotten', jobKey: JOB.key }).map((e) => e.data)).toEqual([
      { step: 'shorts', kind: 'ai_short', status: 'downloaded', remoteId: 'r-1', creditsUsed: 5, creditsPrior: 0, attempts: 1, outputs: 1, by: { user: 'ops' } },
    ]);
  });

  test('the next run plans it again as new', () => {
    bring('downloaded');
    forgetJob(store, JOB.key, {});
    expect(store.syncPlan('m.yaml', [JOB])).toEqual({ added: 1, known: 0 });
    expect(store.job(JOB.key)).toMatchObject({ status: 'planned', remoteId: null, creditsUsed: null, attemptCount: 0 });
  });

  test('an unknown job is undefined, and another manifest\'s identical job is untouched', () => {
    const other = StateStore.open(join(dir, 'r.db'));
    try {
      other.syncPlan('other.yaml', [JOB]);
      expect(forgetJob(store, 'shorts:nope', {})).toBeUndefined();
      forgetJob(store, JOB.key, {});
      expect(other.job(JOB.key)?.status).toBe('planned');
    } finally {
      other.close();
    }
  });
});
