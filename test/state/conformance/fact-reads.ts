import { describe, expect, test } from 'vitest';
import { slotOf, stateAt, type StateReader } from '../../../src/state/index.js';
import { bring, fileOf, MANIFEST, newJob, placeOf, remoteIdOf, type Subject } from './harness.js';

type PlanJobs = Parameters<StateReader['facts']>[1];

/**
 * The facts read (`status`, the report, `plan --json`) through the StateReader of the store's
 * location: each job's row, and what the places (step, output name) of the manifest's rows say —
 * the earlier versions of the plan's jobs and the places a key the state lacks may be `changed`
 * in — whether the rows are read or the caller holds them (a run's end).
 */
export function factReads(subject: Subject): void {
  describe('the facts read', () => {
    const facts = (planJobs: PlanJobs, rows: boolean) => stateAt(subject.location).facts(MANIFEST, planJobs, { rows, money: rows });

    test("a job's row as the facts show it; rows that are the plan's jobs say no earlier versions and no places, read or held", async () => {
      const { store } = subject;
      const jobs = [newJob('a'), newJob('b')];
      await store.syncPlan(MANIFEST, jobs);
      await bring(store, 'a', 'done', { creditsUsed: 4 });
      const read = await facts(jobs.map(placeOf), true);
      expect(read?.rows?.get('a')).toEqual({
        key: 'a', status: 'done', remoteId: remoteIdOf('a'), creditsUsed: 4, failedReason: null, doubtReason: null,
        submittedAt: expect.any(Number) as number, finishedAt: expect.any(Number) as number,
      });
      expect([...(read?.rows?.keys() ?? [])].sort()).toEqual(['a', 'b']);
      expect(read?.money?.byJob.get('a')).toBe(4);
      expect([read?.earlier, read?.slots]).toEqual([new Map(), null]);
      const held = await facts(jobs.map(placeOf), false);
      expect([held?.rows, held?.money, held?.earlier, held?.slots]).toEqual([null, null, new Map(), null]);
    });

    test("an edited row's earlier versions, oldest first, whether the rows are read or held; a removed job is none", async () => {
      const { store, clock } = subject;
      const edited = newJob('new', { outputName: 'clip' });
      await store.syncPlan(MANIFEST, [newJob('first', { outputName: 'clip' }), newJob('gone', { step: 'removed' })]);
      clock.advance(1_000);
      await store.syncPlan(MANIFEST, [newJob('second', { outputName: 'clip' })]);
      clock.advance(1_000);
      await store.syncPlan(MANIFEST, [edited, newJob('b')]);
      const plan = [placeOf(edited), placeOf(newJob('b'))];
      for (const rows of [true, false]) {
        const read = await facts(plan, rows);
        expect(read?.earlier, `rows read: ${rows}`).toEqual(new Map([['new', ['first', 'second']]]));
        expect(read?.slots, `rows read: ${rows}`).toBeNull();
      }
      // Only a job outside the plan in no place of it: no earlier version, whatever is read.
      const removedOnly = [placeOf(edited), placeOf(newJob('first', { outputName: 'clip' })), placeOf(newJob('second', { outputName: 'clip' })), placeOf(newJob('b'))];
      expect((await facts(removedOnly, true))?.earlier).toEqual(new Map());
      expect((await facts(removedOnly, false))?.earlier).toEqual(new Map());
    });

    // SQLite reads a manifest that is most of its state in its tables' order (sqlite/table-order.ts),
    // and through its indexes otherwise: both give each job's files in place order, attempts oldest first.
    for (const share of ['all of the state', 'a small part of the state'] as const) {
      test(`a job's files in place order and its attempts oldest first, its manifest ${share}`, async () => {
        const { store } = subject;
        if (share === 'a small part of the state') {
          await store.syncPlan('other.yaml', Array.from({ length: 12 }, (_, i) => newJob(`other-${i}`)));
          store.useManifest(MANIFEST);
        }
        const jobs = [newJob('a'), newJob('b')];
        await store.syncPlan(MANIFEST, jobs);
        await bring(store, 'a', 'failed');
        await store.retryInRun('a');
        await bring(store, 'a', 'done', { creditsUsed: 3 });
        await bring(store, 'b', 'done');
        // Place 2 recorded before place 0, and b's file between a's write and a's download.
        await store.write({ key: 'a', outputs: { urls: ['https://cdn.example/a/2.mp4', 'https://cdn.example/a/0.mp4'], places: [2, 0] } });
        await store.write({ key: 'b', outputs: { urls: ['https://cdn.example/b/0.mp4'], places: [0] } });
        for (const [key, idx] of [['a', 0], ['a', 2], ['b', 0]] as const) await store.recordDownload(key, idx, fileOf(key, idx));
        const read = await facts(jobs.map(placeOf), true);
        expect(read?.outputs.get('a')?.map((o) => o.path)).toEqual(['a/0.mp4', 'a/2.mp4']);
        expect(read?.outputs.get('b')?.map((o) => o.path)).toEqual(['b/0.mp4']);
        expect(read?.attempts.get('a')?.map((a) => [a.ended, a.charge?.credits])).toEqual([['failed', 5], ['done', 3]]);
        expect([...(read?.attempts.keys() ?? [])].sort()).toEqual(['a', 'b']);
        // A window of them (the report's read) gives each job's the same, in the same order.
        const window = await stateAt(subject.location).facts(MANIFEST, jobs.map(placeOf), { rows: true, money: false, part: { keys: ['b', 'a'] } });
        expect(window?.attempts.get('a')).toEqual(read?.attempts.get('a'));
        expect(window?.outputs.get('a')).toEqual(read?.outputs.get('a'));
      });
    }

    test('a job of the plan the state lacks: the places the rows fill, so a key in a taken one is changed', async () => {
      const { store } = subject;
      await store.syncPlan(MANIFEST, [newJob('old', { outputName: 'clip' }), newJob('b')]);
      const plan = [placeOf(newJob('new', { outputName: 'clip' })), placeOf(newJob('b')), placeOf(newJob('fresh'))];
      const read = await facts(plan, true);
      expect(read?.slots).toEqual(new Set([slotOf('shorts', 'clip'), slotOf('shorts', 'b')]));
      expect(read?.earlier).toEqual(new Map([['new', ['old']]]));
      expect([...(read?.rows?.keys() ?? [])].sort()).toEqual(['b', 'old']);
      // A state with none of the manifest's jobs: every place free.
      expect((await stateAt(subject.location).facts('other.yaml', plan, { rows: true, money: true }))?.slots).toEqual(new Set());
    });
  });
}
