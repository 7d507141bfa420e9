import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { openStore, readEvents, type JobStatus, type Store } from '../../src/state/index.js';
import { peek } from './peek.js';

let dir: string;
let store: Store;
/** The file as committed, read apart from the store. */
let db: Database.Database;
const JOB = { key: 'shorts:abc', step: 'shorts', kind: 'ai_short' as const, request: { script: 'x' }, creditsEstimated: 5 };

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'reelpipe-forget-'));
  store = await openStore(join(dir, 'r.db'));
  await store.syncPlan('m.yaml', [JOB]);
  db = peek(join(dir, 'r.db'));
});
afterEach(async () => {
  db.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Walks the job through the machine to `status`, with an attempt and an output on the way. */
async function bring(status: JobStatus): Promise<void> {
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
    // The attempt opens with the move to submitting (its intent).
    if (to === 'submitting') {
      await store.recordIntent({ key: JOB.key, request: JOB.request, hookToken: null, pathId: null, creditsReserved: 0 });
      continue;
    }
    const change = to === 'submitted' ? { remoteId: 'r-1' } : to === 'done' ? { creditsUsed: 5, result: { id: 'r-1', status: 'done' } } : {};
    const outputs = to === 'done' ? { outputs: { urls: ['https://cdn/x.mp4'], places: [0] } } : {};
    await store.write({ key: JOB.key, move: { to, change, type: 'job:status' }, ...outputs });
  }
}

const count = (table: string) => db.prepare(`SELECT count(*) FROM ${table} WHERE manifest = ?`).pluck().get('m.yaml');

describe('forget', () => {
  test.each(['submitting', 'submitted', 'running', 'in_doubt'] as const)('a job %s (it exists at the service, or may) is refused and kept whole', async (status) => {
    await bring(status);
    expect(await store.forget(JOB.key, { user: 't' })).toMatchObject({ refused: { status } });
    expect((await store.job(JOB.key))?.status).toBe(status);
    expect(count('attempts')).toBe(1);
    expect(readEvents(db, { type: 'job:forgotten' })).toEqual([]);
  });

  test.each(['planned', 'done', 'downloaded', 'failed', 'rejected'] as const)('a job %s is dropped: job, its last read, attempts, outputs', async (status) => {
    await bring(status);
    const result = await store.forget(JOB.key, { user: 't' });
    expect(result).toMatchObject({ forgotten: { key: JOB.key, status } });
    expect(await store.job(JOB.key)).toBeUndefined();
    expect([count('jobs'), count('job_results'), count('attempts'), count('outputs')]).toEqual([0, 0, 0, 0]);
  });

  test('the event keeps what the record held (status, remote id, credits), and who forgot it', async () => {
    await bring('downloaded');
    await store.forget(JOB.key, { user: 'ops' });
    expect(readEvents(db, { type: 'job:forgotten', jobKey: JOB.key }).map((e) => e.data)).toEqual([
      { step: 'shorts', kind: 'ai_short', status: 'downloaded', remoteId: 'r-1', creditsUsed: 5, creditsPrior: 0, attempts: 1, outputs: 1, by: { user: 'ops' } },
    ]);
  });

  test('the next run plans it again as new', async () => {
    await bring('downloaded');
    await store.forget(JOB.key, {});
    expect(await store.syncPlan('m.yaml', [JOB])).toEqual({ added: 1, known: 0 });
    expect(await store.job(JOB.key)).toMatchObject({ status: 'planned', remoteId: null, creditsUsed: null, attemptCount: 0 });
  });

  test('an unknown job is undefined, and another manifest\'s identical job is untouched', async () => {
    const other = await openStore(join(dir, 'r.db'));
    try {
      await other.syncPlan('other.yaml', [JOB]);
      expect(await store.forget('shorts:nope', {})).toBeUndefined();
      await store.forget(JOB.key, {});
      expect((await other.job(JOB.key))?.status).toBe('planned');
    } finally {
      await other.close();
    }
  });
});
