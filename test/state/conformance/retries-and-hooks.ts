import { describe, expect, test } from 'vitest';
import type { HookResult, JobStatus } from '../../../src/state/index.js';
import { allStates, bring, fileOf, MANIFEST, newJob, placeOf, remoteIdOf, type Subject } from './harness.js';
import { itemOf } from './plan-and-moves.js';

const ended = (ok: boolean, extra: Partial<HookResult> = {}): HookResult => ({
  ok, exitCode: ok ? 0 : 2, signal: null, timedOut: false, durationMs: 250, stdoutTail: 'out', stderrTail: ok ? '' : 'err', error: null, ...extra,
});

/** Planning jobs again (`retry`, automatic retries), forgetting one, and the hooks' record. */
export function retriesAndHooks(subject: Subject): void {
  describe('planAgain', () => {
    test('plans again only the jobs of keys found in one of the listed statuses, keeping what they cost', async () => {
      const { store, clock } = subject;
      const jobs = ['a', 'b', 'c', 'd'].map((key) => newJob(key));
      await store.syncPlan(MANIFEST, jobs);
      await bring(store, 'a', 'failed', { reserved: 7, creditsUsed: 3 });
      await bring(store, 'b', 'rejected');
      await bring(store, 'c', 'done');
      clock.advance(1_000);
      const planned = await store.planAgain(['a', 'b', 'c', 'd', 'nope'], ['failed']);
      expect(planned.map((row) => row.key)).toEqual(['a']);
      expect(planned[0]).toMatchObject({
        status: 'planned', creditsPrior: 3, creditsReserved: 0, creditsUsed: null, remoteId: null, failedReason: null, finishedAt: null, attemptCount: 1, updatedAt: clock.now(),
      });
      expect((await store.jobs(['b', 'c', 'd'])).map((row) => row.status)).toEqual(['rejected', 'done', 'planned']);
      // What its failed attempt cost stays counted, and its old remote job is never adopted again.
      const { totals, byJob } = await store.money(jobs.map(placeOf));
      expect(totals.used.known).toBe(13);
      expect(byJob.get('a')).toBe(3);
      expect(await store.remoteIdsKnown('ai_short', [remoteIdOf('a')])).toEqual(new Set([remoteIdOf('a')]));
      expect((await store.planAgain(['b'], ['failed', 'rejected'])).map((row) => [row.key, row.status])).toEqual([['b', 'planned']]);
    });

    test('a failed job of unreported cost stays counted at its reservation once planned again', async () => {
      const { store } = subject;
      const a = newJob('a');
      await store.syncPlan(MANIFEST, [a]);
      await bring(store, 'a', 'failed', { reserved: 7, creditsUsed: null });
      expect((await store.money([placeOf(a)])).totals.counted).toBe(7);
      const [row] = await store.planAgain(['a'], ['failed']);
      expect(row).toMatchObject({ status: 'planned', creditsPrior: 7, creditsReserved: 0 });
      expect((await store.money([placeOf(a)])).totals.counted).toBe(7);
    });
  });

  describe('retryInRun', () => {
    test('plans a failed or partly failed job again and counts the retry for this run only', async () => {
      const { store } = subject;
      await store.syncPlan(MANIFEST, ['a', 'b'].map((key) => newJob(key)));
      await store.startRun('host', 1, null);
      await bring(store, 'a', 'failed');
      await bring(store, 'b', 'partly_failed');
      expect(await store.retryInRun('a')).toMatchObject({ key: 'a', status: 'planned' });
      expect(await store.retryInRun('b')).toMatchObject({ key: 'b', status: 'planned' });
      expect(await store.retriesInRun('a')).toBe(1);
      await bring(store, 'a', 'failed');
      await store.retryInRun('a');
      expect(await store.retriesInRun('a')).toBe(2);
      await store.startRun('host', 2, null);
      expect(await store.retriesInRun('a')).toBe(0);
    });

    test('leaves a job in any other status where it is, answering undefined', async () => {
      const { store } = subject;
      const elsewhere: JobStatus[] = ['planned', 'submitted', 'in_doubt', 'done', 'downloaded', 'rejected'];
      await store.syncPlan(MANIFEST, elsewhere.map((status) => newJob(status)));
      for (const status of elsewhere) await bring(store, status, status);
      for (const status of elsewhere) {
        expect(await store.retryInRun(status)).toBeUndefined();
        expect((await store.job(status))?.status).toBe(status);
        expect(await store.retriesInRun(status)).toBe(0);
      }
      expect(await store.retryInRun('nope')).toBeUndefined();
    });
  });

  describe('forget', () => {
    test('is refused while the job may exist at the service, and changes nothing', async () => {
      const { store } = subject;
      const sent: JobStatus[] = ['submitting', 'submitted', 'running', 'in_doubt'];
      await store.syncPlan(MANIFEST, sent.map((status) => newJob(status)));
      for (const status of sent) {
        await bring(store, status, status);
        const result = await store.forget(status, { user: 'test' });
        expect(result).toEqual({ refused: expect.objectContaining({ key: status, status }) });
        expect((await store.job(status))?.status).toBe(status);
        expect(await store.attempts(status)).toHaveLength(1);
      }
    });

    test('drops a planned job; the next sync plans it again as new', async () => {
      const { store } = subject;
      await store.syncPlan(MANIFEST, [newJob('a'), newJob('b')]);
      expect(await store.forget('a', { user: 'test' })).toEqual({ forgotten: expect.objectContaining({ key: 'a', status: 'planned' }), attempts: 0, outputs: 0 });
      expect(await store.job('a')).toBeUndefined();
      expect((await allStates(store)).map((s) => s.key)).toEqual(['b']);
      expect(await store.syncPlan(MANIFEST, [newJob('a'), newJob('b')])).toEqual({ added: 1, known: 1 });
      expect(await store.forget('nope', {})).toBeUndefined();
    });

    test('drops a finished job with its attempts, outputs and items, its spend still counted apart', async () => {
      const { store } = subject;
      const a = newJob('a');
      await store.syncPlan(MANIFEST, [a]);
      await bring(store, 'a', 'done', { creditsUsed: 5 });
      await store.write({ key: 'a', items: [itemOf(0, 'done')], outputs: { urls: ['https://cdn.example/a/0', 'https://cdn.example/a/1'], places: [0, 1] } });
      expect(await store.forget('a', { user: 'test' })).toMatchObject({ attempts: 1, outputs: 2 });
      expect(await store.attempts('a')).toEqual([]);
      expect(await store.outputs('a')).toEqual([]);
      expect(await store.items('a')).toEqual([]);
      const { totals, byJob } = await store.money([placeOf(a)]);
      expect(totals.used.known).toBe(5);
      expect(totals.apart.forgotten).toBe(5);
      expect(byJob.has('a')).toBe(false);
    });
  });

  describe('hooks', () => {
    test('hookBegin records a running hook durably; hookFinish records how it ended', async () => {
      const { store, clock } = subject;
      await store.syncPlan(MANIFEST, [newJob('a')]);
      const id = await store.hookBegin('on_output', { jobKey: 'a', outputIdx: 0, sha256: 'sha-a-0' }, ['notify', 'a/0.mp4']);
      const startedAt = clock.now();
      const reopened = await subject.restart();
      expect([...(await reopened.hookLatest('a'))]).toEqual([[0, expect.objectContaining({
        id, runId: null, hook: 'on_output', jobKey: 'a', outputIdx: 0, outputSha256: 'sha-a-0', state: 'running', argv: ['notify', 'a/0.mp4'], startedAt, finishedAt: null,
      })]]);
      clock.advance(250);
      const row = await reopened.hookFinish(id, ended(true));
      expect(row).toMatchObject({ id, state: 'ok', exitCode: 0, signal: null, timedOut: false, durationMs: 250, stdoutTail: 'out', stderrTail: '', error: null, finishedAt: clock.now() });
      expect((await reopened.hookLatest('a')).get(0)).toEqual(row);
    });

    test('hookLatest answers the newest on_output row of each output of the job, by output index', async () => {
      const { store } = subject;
      await store.syncPlan(MANIFEST, [newJob('a'), newJob('b')]);
      const first = await store.hookBegin('on_output', { jobKey: 'a', outputIdx: 0, sha256: 's0' }, ['x']);
      await store.hookFinish(first, ended(false));
      const again = await store.hookBegin('on_output', { jobKey: 'a', outputIdx: 0, sha256: 's0' }, ['x']);
      const other = await store.hookBegin('on_output', { jobKey: 'a', outputIdx: 1, sha256: 's1' }, ['x']);
      await store.hookFinish(other, ended(false, { exitCode: null, signal: 'SIGKILL', timedOut: true }));
      await store.hookBegin('on_finish', null, ['done']);
      const latest = await store.hookLatest('a');
      expect([...latest.keys()].sort()).toEqual([0, 1]);
      expect(latest.get(0)).toMatchObject({ id: again, state: 'running' });
      expect(latest.get(1)).toMatchObject({ id: other, state: 'failed', exitCode: null, signal: 'SIGKILL', timedOut: true });
      expect((await store.hookLatest('b')).size).toBe(0);
    });

    test('retryFailedHooks marks the failed hooks of hook_failed jobs retried and moves those jobs back to downloaded', async () => {
      const { store } = subject;
      await store.syncPlan(MANIFEST, [newJob('a'), newJob('b')]);
      await bring(store, 'a', 'hook_failed');
      await bring(store, 'b', 'downloaded');
      await store.write({ key: 'a', outputs: { urls: ['https://cdn.example/a/0'], places: [0] } });
      await store.recordDownload('a', 0, fileOf('a', 0));
      const id = await store.hookBegin('on_output', { jobKey: 'a', outputIdx: 0, sha256: 'sha-a-0' }, ['x']);
      await store.hookFinish(id, ended(false));
      expect(await store.retryFailedHooks(['a', 'b'])).toEqual({ jobs: 1, hooks: 1 });
      expect(await store.job('a')).toMatchObject({ status: 'downloaded', failedReason: null });
      expect((await store.hookLatest('a')).get(0)?.state).toBe('retried');
      expect((await store.job('b'))?.status).toBe('downloaded');
    });
  });
}
