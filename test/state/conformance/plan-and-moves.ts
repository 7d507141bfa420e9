import { describe, expect, test } from 'vitest';
import { StaleWriteError, type JobItemRow, type JobState } from '../../../src/state/index.js';
import { allStates, bring, MANIFEST, newJob, placeOf, remoteIdOf, sentRequest, type Subject } from './harness.js';

/** An item a remote job made (or failed to make), as a JobWrite records it. */
export const itemOf = (idx: number, state: 'done' | 'failed', remoteId: string | null = null): Omit<JobItemRow, 'jobKey'> => ({
  idx,
  item: `style-${idx}`,
  state,
  failedReason: state === 'failed' ? 'did not fit' : null,
  attemptId: null,
  remoteId,
  url: state === 'done' ? `https://cdn.example/ad-${idx}.html` : null,
  refunded: state === 'failed' ? 2 : 0,
  refundDerived: state === 'failed',
});

/** The plan, a job's moves, its intents, waves of writes and the group commit. */
export function planAndMoves(subject: Subject): void {
  describe('the plan', () => {
    test('syncPlan records each new job as planned, says how many it added, and scopes the store to the manifest', async () => {
      const { store, clock } = subject;
      expect(await store.syncPlan(MANIFEST, [newJob('a'), newJob('b', { creditsEstimated: 9, pathId: 'p-b' })])).toEqual({ added: 2, known: 0 });
      expect(store.manifest).toBe(MANIFEST);
      expect(await store.job('b')).toMatchObject({
        key: 'b', manifest: MANIFEST, step: 'shorts', kind: 'ai_short', outputName: 'b', request: { script: 'script b' }, pathId: 'p-b',
        status: 'planned', remoteId: null, creditsEstimated: 9, creditsReserved: 0, creditsUsed: null, creditsPrior: 0, result: null,
        failedReason: null, doubtReason: null, attemptCount: 0, createdAt: clock.now(), updatedAt: clock.now(), submittedAt: null, finishedAt: null,
      });
    });

    test('a known key keeps its status and history on a second sync', async () => {
      const { store, clock } = subject;
      await store.syncPlan(MANIFEST, [newJob('a'), newJob('b')]);
      await bring(store, 'a', 'submitting');
      clock.advance(1_000);
      expect(await store.syncPlan(MANIFEST, [newJob('a'), newJob('b'), newJob('c')])).toEqual({ added: 1, known: 2 });
      expect(await store.job('a')).toMatchObject({ status: 'submitting', request: sentRequest('a'), attemptCount: 1 });
      expect((await store.job('b'))?.status).toBe('planned');
      expect((await store.job('c'))?.status).toBe('planned');
      expect(await store.attempts('a')).toHaveLength(1);
    });

    test('a sync with every job past planned (a finished manifest run again) writes no job and succeeds', async () => {
      const { store } = subject;
      await store.syncPlan(MANIFEST, [newJob('a'), newJob('b')]);
      await bring(store, 'a', 'done');
      await bring(store, 'b', 'submitting');
      expect(await store.syncPlan(MANIFEST, [newJob('a'), newJob('b')])).toEqual({ added: 0, known: 2 });
      expect((await store.jobs(['a', 'b'])).map((row) => row.status)).toEqual(['done', 'submitting']);
    });

    test('jobStates lists every job of the manifest, without its request and answer', async () => {
      const { store } = subject;
      await store.syncPlan(MANIFEST, [newJob('a'), newJob('b'), newJob('c')]);
      await bring(store, 'b', 'done');
      const states = await allStates(store);
      expect(states.map((s) => [s.key, s.status]).sort()).toEqual([['a', 'planned'], ['b', 'done'], ['c', 'planned']]);
      for (const state of states) {
        expect(state).not.toHaveProperty('request');
        expect(state).not.toHaveProperty('result');
      }
      expect(states.find((s) => s.key === 'b')).toMatchObject({ remoteId: remoteIdOf('b'), creditsUsed: 5, attemptCount: 1 });
    });

    test('jobStatePage of the recorded jobs pages through those past planned only, as jobStates has them; none recorded, no page', async () => {
      const { store } = subject;
      await store.syncPlan(MANIFEST, ['a', 'b', 'c', 'd', 'e'].map((key) => newJob(key)));
      expect(await store.jobStatePage(null, 10, true)).toEqual([]);
      await bring(store, 'b', 'done');
      await bring(store, 'd', 'submitting');
      await bring(store, 'e', 'in_doubt');
      const pages: [string, string][][] = [];
      for (let after: string | null = null, page: JobState[]; (page = await store.jobStatePage(after, 2, true)).length > 0; after = page.at(-1)!.key) pages.push(page.map((s) => [s.key, s.status]));
      expect(pages).toEqual([[['b', 'done'], ['d', 'submitting']], [['e', 'in_doubt']]]);
      const all = await allStates(store);
      expect((await store.jobStatePage('b', 1, true))[0]).toEqual(all.find((s) => s.key === 'd'));
    });

    test('jobStatePage reads the manifest a page at a time in key order: the pages meet, each job once, none of another manifest', async () => {
      const { store } = subject;
      await store.syncPlan('other.yaml', [newJob('b2')]);
      await store.syncPlan(MANIFEST, ['e', 'a', 'd', 'b', 'c'].map((key) => newJob(key)));
      await bring(store, 'd', 'done');
      const pages: string[][] = [];
      for (let after: string | null = null, page: JobState[]; (page = await store.jobStatePage(after, 2)).length > 0; after = page.at(-1)!.key) pages.push(page.map((s) => s.key));
      expect(pages).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
      const all = await allStates(store);
      expect((await store.jobStatePage('c', 1))[0]).toEqual(all.find((s) => s.key === 'd'));
      expect(await store.jobStatePage('e', 10)).toEqual([]);
    });

    test('jobs answers in the order asked and skips unknown keys; job answers undefined for an unknown key', async () => {
      const { store } = subject;
      await store.syncPlan(MANIFEST, [newJob('a'), newJob('b'), newJob('c')]);
      expect((await store.jobs(['c', 'nope', 'a'])).map((row) => row.key)).toEqual(['c', 'a']);
      expect(await store.jobs([])).toEqual([]);
      expect(await store.job('nope')).toBeUndefined();
    });

    test('a job is identified by manifest and key: the same key in another manifest is another job', async () => {
      const { store } = subject;
      await store.syncPlan(MANIFEST, [newJob('a')]);
      expect(await store.syncPlan('other.yaml', [newJob('a'), newJob('z')])).toEqual({ added: 2, known: 0 });
      expect(store.manifest).toBe('other.yaml');
      await bring(store, 'a', 'submitting');
      store.useManifest(MANIFEST);
      expect((await store.job('a'))?.status).toBe('planned');
      expect(await store.job('z')).toBeUndefined();
      expect((await allStates(store)).map((s) => s.key)).toEqual(['a']);
    });
  });

  describe("a job's moves", () => {
    test('a legal move changes the row and says it moved', async () => {
      const { store, clock } = subject;
      await store.syncPlan(MANIFEST, [newJob('a')]);
      clock.advance(5_000);
      const written = await store.write({ key: 'a', move: { to: 'submitting', change: { creditsReserved: 4 }, type: 'job:intent' } });
      expect(written.moved).toBe(true);
      expect(written.row).toMatchObject({ key: 'a', status: 'submitting', creditsReserved: 4, updatedAt: clock.now() });
      expect(await store.job('a')).toMatchObject({ status: 'submitting', creditsReserved: 4, updatedAt: clock.now() });
    });

    test('an illegal move (planned → downloaded) is refused and changes nothing', async () => {
      const { store, clock } = subject;
      await store.syncPlan(MANIFEST, [newJob('a')]);
      const before = await store.job('a');
      clock.advance(1_000);
      await expect(store.write({ key: 'a', move: { to: 'downloaded', type: 'job:downloaded' } })).rejects.toThrow(/illegal status change planned → downloaded/);
      expect(await store.job('a')).toEqual(before);
    });

    test('a write whose onlyFrom does not hold writes none of its parts and says it did not move', async () => {
      const { store, clock } = subject;
      await store.syncPlan(MANIFEST, [newJob('a')]);
      const before = await store.job('a');
      clock.advance(1_000);
      const written = await store.write({
        key: 'a',
        onlyFrom: ['submitted', 'running'],
        items: [itemOf(0, 'done')],
        outputs: { urls: ['https://cdn.example/a.mp4'], places: [0] },
        move: { to: 'submitting', type: 'job:intent' },
      });
      expect(written.moved).toBe(false);
      expect(written.row.status).toBe('planned');
      expect(await store.job('a')).toEqual(before);
      expect(await store.items('a')).toEqual([]);
      expect(await store.outputs('a')).toEqual([]);
    });

    test('a write whose onlyFrom holds is written', async () => {
      const { store } = subject;
      await store.syncPlan(MANIFEST, [newJob('a')]);
      await bring(store, 'a', 'submitted');
      const written = await store.write({ key: 'a', onlyFrom: ['submitted', 'running'], move: { to: 'running', change: { remoteStatus: 'in_queue' }, type: 'job:status' } });
      expect(written).toMatchObject({ moved: true, row: { status: 'running', remoteStatus: 'in_queue' } });
    });

    test('a write that fails part-way writes none of its parts', async () => {
      const { store } = subject;
      await store.syncPlan(MANIFEST, [newJob('a')]);
      await bring(store, 'a', 'submitting');
      await expect(store.write({
        key: 'a',
        attempt: { id: 'open intent', state: 'answered', remoteId: 'r-1' },
        items: [itemOf(0, 'done')],
        move: { to: 'downloaded', type: 'job:downloaded' },
      })).rejects.toThrow(/illegal status change submitting → downloaded/);
      expect(await store.lastAttempt('a')).toMatchObject({ state: 'intent', remoteId: null, answeredAt: null });
      expect(await store.items('a')).toEqual([]);
      expect((await store.job('a'))?.status).toBe('submitting');
      expect(await store.remoteIdOwner('r-1')).toBeUndefined();
    });

    test("a move to 'made' lands on downloaded, or on partly_failed while an item it was to make failed", async () => {
      const { store } = subject;
      await store.syncPlan(MANIFEST, [newJob('a'), newJob('b')]);
      await bring(store, 'a', 'done');
      await bring(store, 'b', 'done');
      await store.write({ key: 'b', items: [itemOf(0, 'done'), itemOf(1, 'failed')] });
      expect((await store.write({ key: 'a', move: { to: 'made', type: 'job:downloaded' } })).row.status).toBe('downloaded');
      expect((await store.write({ key: 'b', move: { to: 'made', type: 'job:downloaded' } })).row.status).toBe('partly_failed');
    });
  });

  describe('intents and reservations', () => {
    test('recordIntent moves the job to submitting with the request sent, and opens an attempt in intent', async () => {
      const { store, clock } = subject;
      await store.syncPlan(MANIFEST, [newJob('a')]);
      clock.advance(2_000);
      const id = await store.recordIntent({ key: 'a', request: { script: 'resolved' }, hookToken: 'tok-a', pathId: 'path-a', creditsReserved: 7 });
      expect(await store.job('a')).toMatchObject({ status: 'submitting', request: { script: 'resolved' }, pathId: 'path-a', creditsReserved: 7, attemptCount: 1 });
      expect(await store.lastAttempt('a')).toEqual({
        id, jobKey: 'a', runId: null, state: 'intent', request: { script: 'resolved' }, intentAt: clock.now(), answeredAt: null,
        remoteId: null, error: null, hookToken: 'tok-a', deliveredId: null,
      });
      expect((await store.attemptByHookToken('tok-a'))?.id).toBe(id);
    });

    test('the reservation of an open intent is held in the money, of unknown cost, and counted only once settled', async () => {
      const { store } = subject;
      const a = newJob('a');
      await store.syncPlan(MANIFEST, [a]);
      await bring(store, 'a', 'submitted', { reserved: 7 });
      let { totals, byJob } = await store.money([placeOf(a)]);
      expect([...totals.held]).toEqual([['a', 7]]);
      expect(totals.counted).toBe(0);
      expect(totals.used).toEqual({ known: 0, unknown: 1 });
      expect(byJob.get('a')).toBeNull();
      await store.write({ key: 'a', move: { to: 'done', change: { creditsUsed: 4 }, type: 'job:done' } });
      ({ totals, byJob } = await store.money([placeOf(a)]));
      expect(totals.held.size).toBe(0);
      expect(totals.counted).toBe(4);
      expect(totals.used).toEqual({ known: 4, unknown: 0 });
      expect(byJob.get('a')).toBe(4);
    });

    test("write with attempt 'open intent' closes the job's open intent, and only an open one", async () => {
      const { store, clock } = subject;
      await store.syncPlan(MANIFEST, [newJob('a')]);
      const id = await store.recordIntent({ key: 'a', request: sentRequest('a'), hookToken: null, pathId: null, creditsReserved: 5 });
      clock.advance(3_000);
      await store.write({ key: 'a', attempt: { id: 'open intent', state: 'answered', remoteId: 'r-a' } });
      expect(await store.lastAttempt('a')).toMatchObject({ id, state: 'answered', remoteId: 'r-a', answeredAt: clock.now() });
      await store.write({ key: 'a', attempt: { id: 'open intent', state: 'in_doubt', error: 'late' } });
      expect(await store.lastAttempt('a')).toMatchObject({ id, state: 'answered', remoteId: 'r-a', error: null });
    });

    test('an attempt that provably created nothing costs nothing and holds nothing', async () => {
      const { store } = subject;
      const a = newJob('a');
      await store.syncPlan(MANIFEST, [a]);
      const id = await store.recordIntent({ key: 'a', request: sentRequest('a'), hookToken: null, pathId: null, creditsReserved: 7 });
      await store.write({ key: 'a', attempt: { id, state: 'not_sent', error: 'refused before sending' }, move: { to: 'planned', change: { creditsReserved: 0 }, type: 'job:not-created' } });
      const { totals, byJob } = await store.money([placeOf(a)]);
      expect(totals.held.size).toBe(0);
      expect(totals.used).toEqual({ known: 0, unknown: 0 });
      expect(totals.counted).toBe(0);
      expect(byJob.get('a')).toBe(0);
      expect(await store.lastAttempt('a')).toMatchObject({ id, state: 'not_sent', error: 'refused before sending' });
    });

    test('an answered job makes its remote id known and owned', async () => {
      const { store } = subject;
      await store.syncPlan(MANIFEST, [newJob('a'), newJob('b')]);
      await bring(store, 'a', 'submitted');
      expect(await store.job('a')).toMatchObject({ status: 'submitted', remoteId: remoteIdOf('a') });
      expect(await store.lastAttempt('a')).toMatchObject({ state: 'answered', remoteId: remoteIdOf('a') });
      expect(await store.remoteIdOwner(remoteIdOf('a'))).toEqual({ manifest: MANIFEST, key: 'a' });
      expect(await store.remoteIdOwner('remote-unknown')).toBeUndefined();
      expect(await store.remoteIdsKnown('ai_short', [remoteIdOf('a'), 'remote-unknown'])).toEqual(new Set([remoteIdOf('a')]));
      expect(await store.remoteIdsKnown('link', [remoteIdOf('a')])).toEqual(new Set());
    });

    test('an intent made for a run carries the run', async () => {
      const { store } = subject;
      await store.syncPlan(MANIFEST, [newJob('a')]);
      const runId = await store.startRun('host', 4242, 100);
      expect(store.runId).toBe(runId);
      await bring(store, 'a', 'submitting');
      expect((await store.lastAttempt('a'))?.runId).toBe(runId);
    });
  });

  describe('waves of writes', () => {
    test('writeAll applies many writes in one call, answering each in the order given', async () => {
      const { store } = subject;
      await store.syncPlan(MANIFEST, [newJob('a'), newJob('b'), newJob('c')]);
      const written = await store.writeAll(['c', 'a', 'b'].map((key, i) => ({ key, move: { to: 'submitting' as const, change: { creditsReserved: i + 1 }, type: 'job:intent' as const } })));
      expect(written.map((w) => [w.row.key, w.row.status, w.row.creditsReserved, w.moved])).toEqual([
        ['c', 'submitting', 1, true], ['a', 'submitting', 2, true], ['b', 'submitting', 3, true],
      ]);
      expect((await store.jobsWithStatus(['submitting'])).map((r) => r.key).sort()).toEqual(['a', 'b', 'c']);
    });

    test('with allOrNothing, one stale write rejects with StaleWriteError and nothing of the list is written', async () => {
      const { store } = subject;
      await store.syncPlan(MANIFEST, [newJob('a'), newJob('b'), newJob('c')]);
      await bring(store, 'c', 'submitting');
      const before = await store.jobs(['a', 'b', 'c']);
      const error: unknown = await store.writeAll([
        { key: 'a', onlyFrom: ['planned'], move: { to: 'submitting', type: 'job:intent' } },
        { key: 'c', onlyFrom: ['submitting'], attempt: { id: 'open intent', state: 'answered', remoteId: 'r-c' }, move: { to: 'submitted', change: { remoteId: 'r-c' }, type: 'job:answered' } },
        { key: 'b', onlyFrom: ['submitted'], move: { to: 'running', type: 'job:status' } },
      ], { allOrNothing: true }).then(() => 'written', (e: unknown) => e);
      expect(error).toBeInstanceOf(StaleWriteError);
      expect((error as StaleWriteError).row).toMatchObject({ key: 'b', status: 'planned' });
      expect(await store.jobs(['a', 'b', 'c'])).toEqual(before);
      expect((await store.lastAttempt('c'))?.state).toBe('intent');
      expect(await store.remoteIdOwner('r-c')).toBeUndefined();
    });

    test('without allOrNothing, a stale write is skipped and the others are written', async () => {
      const { store } = subject;
      await store.syncPlan(MANIFEST, [newJob('a'), newJob('b')]);
      const written = await store.writeAll([
        { key: 'a', onlyFrom: ['planned'], move: { to: 'submitting', type: 'job:intent' } },
        { key: 'b', onlyFrom: ['submitted'], move: { to: 'running', type: 'job:status' } },
      ]);
      expect(written.map((w) => [w.row.key, w.row.status, w.moved])).toEqual([['a', 'submitting', true], ['b', 'planned', false]]);
      expect((await store.job('a'))?.status).toBe('submitting');
    });
  });

  describe('the group commit', () => {
    test('many writes started in one turn all commit, each answered with its own row', async () => {
      const { store } = subject;
      const keys = Array.from({ length: 16 }, (_, i) => `g${i}`);
      await store.syncPlan(MANIFEST, keys.map((key) => newJob(key)));
      const written = await Promise.all(keys.map((key, i) => store.write({ key, move: { to: 'submitting', change: { creditsReserved: i }, type: 'job:intent' } })));
      expect(written.map((w) => [w.row.key, w.row.creditsReserved, w.moved])).toEqual(keys.map((key, i) => [key, i, true]));
      const other = await subject.beside();
      expect((await other.jobsWithStatus(['submitting'])).map((r) => r.key).sort()).toEqual([...keys].sort());
    });

    test('intents started in one turn each open their own attempt', async () => {
      const { store } = subject;
      const keys = ['a', 'b', 'c', 'd'];
      await store.syncPlan(MANIFEST, keys.map((key) => newJob(key)));
      const ids = await Promise.all(keys.map((key) => store.recordIntent({ key, request: sentRequest(key), hookToken: `tok-${key}`, pathId: null, creditsReserved: 1 })));
      expect(new Set(ids).size).toBe(4);
      for (const [i, key] of keys.entries()) expect(await store.lastAttempt(key)).toMatchObject({ id: ids[i], jobKey: key, state: 'intent', hookToken: `tok-${key}` });
    });

    test('a failing write among them rejects alone: the others commit', async () => {
      const { store } = subject;
      await store.syncPlan(MANIFEST, [newJob('a'), newJob('b'), newJob('c')]);
      const outcomes = await Promise.allSettled([
        store.write({ key: 'a', move: { to: 'submitting', type: 'job:intent' } }),
        store.write({ key: 'b', move: { to: 'downloaded', type: 'job:downloaded' } }),
        store.write({ key: 'c', move: { to: 'submitting', type: 'job:intent' } }),
      ]);
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect((await store.jobs(['a', 'b', 'c'])).map((r) => r.status)).toEqual(['submitting', 'planned', 'submitting']);
    });

    test('writes made in one turn apply in the order they were made', async () => {
      const { store } = subject;
      await store.syncPlan(MANIFEST, [newJob('a')]);
      const [first, second] = await Promise.all([
        store.write({ key: 'a', onlyFrom: ['planned'], move: { to: 'submitting', type: 'job:intent' } }),
        store.write({ key: 'a', onlyFrom: ['submitting'], move: { to: 'in_doubt', change: { doubtReason: 'lost' }, type: 'job:in-doubt' } }),
      ]);
      expect([first.moved, first.row.status]).toEqual([true, 'submitting']);
      expect([second.moved, second.row.status]).toEqual([true, 'in_doubt']);
    });
  });
}
