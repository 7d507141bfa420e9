import { describe, expect, test } from 'vitest';
import type { NewJob, PlanFeed } from '../../../src/state/index.js';
import { bring, MANIFEST, newJob, type Subject } from './harness.js';

/** A job with its record as planned (what plan/planned-record.ts gives the store). */
const recorded = (key: string, record: string, extra: Partial<NewJob> = {}): NewJob => newJob(key, { planned: { record, digest: `d-${record}` }, ...extra });

/** `jobs` as a feed read once, made as the store reads them (as a run records a streamed plan). */
function feedOf(jobs: readonly NewJob[]): PlanFeed & { reads: number } {
  const feed = {
    reads: 0,
    length: jobs.length,
    keys: { has: (key: string) => jobs.some((job) => job.key === key) },
    steps: new Set(jobs.map((job) => job.step)),
    *[Symbol.iterator]() {
      feed.reads++;
      yield* jobs;
    },
  };
  return feed;
}

/** Each job as planned, kept with it, and read back a window at a time (migration 25). */
export function planRecords(subject: Subject): void {
  describe('jobs as planned', () => {
    test('each job is read back with its record as it was given, in the order asked; a key without one is left out', async () => {
      const { store } = subject;
      await store.syncPlan(MANIFEST, [recorded('a', '{"label":"A"}', { priority: 3 }), recorded('b', '{"label":"B"}'), newJob('c')]);
      expect(await store.plannedJobs(['b', 'nope', 'a', 'c'])).toEqual([
        { key: 'b', step: 'shorts', kind: 'ai_short', outputName: 'b', priority: 0, record: '{"label":"B"}' },
        { key: 'a', step: 'shorts', kind: 'ai_short', outputName: 'a', priority: 3, record: '{"label":"A"}' },
      ]);
    });

    test('a sent job keeps its request as sent, and gets a changed record (a new label); an unchanged one is not written', async () => {
      const { store } = subject;
      await store.syncPlan(MANIFEST, [recorded('a', '{"label":"A"}'), recorded('b', '{"label":"B"}')]);
      await bring(store, 'a', 'done');
      await bring(store, 'b', 'done');
      const before = await store.job('b');
      await store.syncPlan(MANIFEST, [recorded('a', '{"label":"A2"}'), recorded('b', '{"label":"B"}')]);
      expect((await store.plannedJobs(['a', 'b'])).map((row) => row.record)).toEqual(['{"label":"A2"}', '{"label":"B"}']);
      expect(await store.job('a')).toMatchObject({ status: 'done', request: { script: 'sent a' } });
      expect(await store.job('b')).toEqual(before);
    });

    test('a feed is read once, and its jobs recorded and claimable as a list is', async () => {
      const { store } = subject;
      const feed = feedOf([recorded('a', '{"label":"A"}'), recorded('b', '{"label":"B"}'), recorded('c', '{"label":"C"}')]);
      expect(await store.syncPlan(MANIFEST, feed)).toEqual({ added: 3, known: 0 });
      expect(feed.reads).toBe(1);
      expect((await store.claim(10)).map((row) => row.key)).toEqual(['a', 'b', 'c']);
    });

    test('a feed that leaves a job out takes it out of the plan: it is no longer claimed', async () => {
      const { store } = subject;
      await store.syncPlan(MANIFEST, [recorded('a', '{"label":"A"}'), recorded('b', '{"label":"B"}')]);
      await bring(store, 'b', 'submitted');
      await store.syncPlan(MANIFEST, feedOf([recorded('a', '{"label":"A"}')]));
      expect((await store.claim(10)).map((row) => row.key)).toEqual(['a']);
    });
  });
}
