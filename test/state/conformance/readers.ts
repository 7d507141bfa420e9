import { describe, expect, test } from 'vitest';
import { allStates, bring, fileOf, MANIFEST, newJob, placeOf, remoteIdOf, sentRequest, type Subject } from './harness.js';
import { itemOf } from './plan-and-moves.js';
import type { Store } from '../../../src/state/index.js';

const links = (key: string, n: number) => ({ urls: Array.from({ length: n }, (_, i) => `https://cdn.example/${key}/${i}.mp4`), places: Array.from({ length: n }, (_, i) => i) });

/** The reads of committed state: jobs by status, attempts, files, items, money and deliveries. */
export function readers(subject: Subject): void {
  describe('reads of jobs and attempts', () => {
    test('jobsWithStatus answers the jobs in any of the statuses asked, and only those', async () => {
      const { store } = subject;
      await store.syncPlan(MANIFEST, ['a', 'b', 'c', 'd'].map((key) => newJob(key)));
      await bring(store, 'b', 'submitting');
      await bring(store, 'c', 'done');
      await bring(store, 'd', 'failed');
      expect((await store.jobsWithStatus(['planned', 'done'])).map((r) => [r.key, r.status]).sort()).toEqual([['a', 'planned'], ['c', 'done']]);
      expect((await store.jobsWithStatus(['failed']))[0]).toMatchObject({ key: 'd', failedReason: 'the service failed it', request: sentRequest('d') });
      expect(await store.jobsWithStatus(['running'])).toEqual([]);
    });

    test('attempts answers every attempt of a job, oldest first; lastAttempt the newest', async () => {
      const { store, clock } = subject;
      await store.syncPlan(MANIFEST, [newJob('a')]);
      const first = await store.recordIntent({ key: 'a', request: { try: 1 }, hookToken: null, pathId: null, creditsReserved: 5 });
      await store.write({ key: 'a', attempt: { id: first, state: 'not_sent', error: 'never sent' }, move: { to: 'planned', type: 'job:not-created' } });
      clock.advance(1_000);
      const second = await store.recordIntent({ key: 'a', request: { try: 2 }, hookToken: null, pathId: null, creditsReserved: 5 });
      expect((await store.attempts('a')).map((a) => [a.id, a.state, a.request, a.error])).toEqual([
        [first, 'not_sent', { try: 1 }, 'never sent'],
        [second, 'intent', { try: 2 }, null],
      ]);
      expect(await store.lastAttempt('a')).toMatchObject({ id: second, intentAt: clock.now() });
      expect((await store.job('a'))?.attemptCount).toBe(2);
      expect(await store.attempts('nope')).toEqual([]);
      expect(await store.lastAttempt('nope')).toBeUndefined();
    });
  });

  describe('files', () => {
    test("a write's outputs are recorded at their places, and recordDownload fills one in", async () => {
      const { store, clock } = subject;
      await store.syncPlan(MANIFEST, [newJob('a'), newJob('b')]);
      await bring(store, 'a', 'done');
      await store.write({ key: 'a', outputs: { urls: ['https://cdn.example/a/x.mp4', 'https://cdn.example/a/y.mp4'], places: [0, 2] } });
      clock.advance(500);
      await store.recordDownload('a', 2, fileOf('a', 2));
      expect(await store.outputs('a')).toEqual([
        { jobKey: 'a', idx: 0, url: 'https://cdn.example/a/x.mp4', path: null, bytes: null, sha256: null, contentType: null, downloadedAt: null, statStamp: null },
        { jobKey: 'a', idx: 2, url: 'https://cdn.example/a/y.mp4', path: 'a/2.mp4', bytes: 1002, sha256: 'sha-a-2', contentType: 'video/mp4', downloadedAt: clock.now(), statStamp: 'stamp-a-2' },
      ]);
      expect(await store.outputsAtPath('a/2.mp4')).toEqual([{ jobKey: 'a', idx: 2 }]);
      expect(await store.outputs('b')).toEqual([]);
      const some = await store.outputsOf(['b', 'a', 'zz']);
      expect([...some.keys()]).toEqual(['a']);
      expect(some.get('a')).toEqual(await store.outputs('a'));
      expect(await store.outputsOf([])).toEqual(new Map());
    });

    test('recordVerified stamps a file anew; moveOutput moves it, keeping its checksum', async () => {
      const { store } = subject;
      await store.syncPlan(MANIFEST, [newJob('a')]);
      await bring(store, 'a', 'done');
      await store.write({ key: 'a', outputs: links('a', 1) });
      await store.recordDownload('a', 0, fileOf('a', 0));
      await store.recordVerified('a', 0, 'stamp-later');
      expect((await store.outputs('a'))[0]).toMatchObject({ path: 'a/0.mp4', statStamp: 'stamp-later' });
      await store.moveOutput('a', 0, 'old/a-0.mp4', 'superseded');
      expect((await store.outputs('a'))[0]).toMatchObject({ path: 'old/a-0.mp4', sha256: 'sha-a-0' });
      expect(await store.outputsAtPath('a/0.mp4')).toEqual([]);
      await store.moveOutput('a', 0, null, 'gone');
      expect((await store.outputs('a'))[0]).toMatchObject({ path: null, sha256: 'sha-a-0' });
    });

    test('finishDownload reports the files still missing, and leaves the job done', async () => {
      const { store } = subject;
      await store.syncPlan(MANIFEST, [newJob('a')]);
      await bring(store, 'a', 'done');
      await store.write({ key: 'a', outputs: links('a', 3) });
      await store.recordDownload('a', 0, fileOf('a', 0));
      expect(await store.finishDownload('a', undefined, 3)).toEqual({ missing: 2 });
      expect(await store.finishDownload('a', { idx: 1, file: fileOf('a', 1) }, 3)).toEqual({ missing: 1 });
      expect((await store.outputs('a'))[1]).toMatchObject({ path: 'a/1.mp4', sha256: 'sha-a-1' });
      expect((await store.job('a'))?.status).toBe('done');
    });

    test('finishDownload moves a job whose every file is recorded to downloaded', async () => {
      const { store } = subject;
      await store.syncPlan(MANIFEST, [newJob('a')]);
      await bring(store, 'a', 'done');
      await store.write({ key: 'a', outputs: links('a', 2) });
      await store.recordDownload('a', 0, fileOf('a', 0));
      const finished = await store.finishDownload('a', { idx: 1, file: fileOf('a', 1) }, 2);
      expect(finished).toEqual({ row: expect.objectContaining({ key: 'a', status: 'downloaded' }) });
      expect((await store.job('a'))?.status).toBe('downloaded');
      expect((await store.outputs('a')).map((o) => o.sha256)).toEqual(['sha-a-0', 'sha-a-1']);
    });

    test('finishDownload moves a job one of whose items failed to partly_failed', async () => {
      const { store } = subject;
      await store.syncPlan(MANIFEST, [newJob('a', { kind: 'html_ads' })]);
      await bring(store, 'a', 'done');
      await store.write({ key: 'a', items: [itemOf(0, 'done'), itemOf(1, 'failed')], outputs: 'items' });
      const finished = await store.finishDownload('a', { idx: 0, file: fileOf('a', 0) }, 1);
      expect(finished).toEqual({ row: expect.objectContaining({ status: 'partly_failed' }) });
    });

    test('a link to another file forgets the old record, so the output is fetched again', async () => {
      const { store } = subject;
      await store.syncPlan(MANIFEST, [newJob('a')]);
      await bring(store, 'a', 'done');
      await store.write({ key: 'a', outputs: { urls: ['https://cdn.example/a/v1.mp4'], places: [0] } });
      await store.recordDownload('a', 0, fileOf('a', 0));
      await store.write({ key: 'a', outputs: { urls: ['https://cdn.example/a/v2.mp4'], places: [0] } });
      expect((await store.outputs('a'))[0]).toMatchObject({ url: 'https://cdn.example/a/v2.mp4', path: null, sha256: null });
      expect(await store.finishDownload('a', undefined, 1)).toEqual({ missing: 1 });
    });
  });

  describe('items', () => {
    test('a write with items records them, in their places order, and outputs: items links the made ones', async () => {
      const { store } = subject;
      await store.syncPlan(MANIFEST, [newJob('a', { kind: 'html_ads' }), newJob('b')]);
      await bring(store, 'a', 'done');
      await store.write({ key: 'a', items: [itemOf(2, 'done', 'r-2'), itemOf(0, 'done', 'r-0'), itemOf(1, 'failed', 'r-1')], outputs: 'items' });
      const items = await store.items('a');
      expect(items.map((i) => [i.jobKey, i.idx, i.item, i.state])).toEqual([['a', 0, 'style-0', 'done'], ['a', 1, 'style-1', 'failed'], ['a', 2, 'style-2', 'done']]);
      expect(items[1]).toEqual({ jobKey: 'a', ...itemOf(1, 'failed', 'r-1') });
      expect((await store.outputs('a')).map((o) => [o.idx, o.url])).toEqual([[0, 'https://cdn.example/ad-0.html'], [2, 'https://cdn.example/ad-2.html']]);
      expect(await store.items('b')).toEqual([]);
      const all = await store.allItems();
      expect([...all.keys()]).toEqual(['a']);
      expect(all.get('a')).toEqual(items);
    });

    test("a later write's items replace the records of their places, and leave the others", async () => {
      const { store } = subject;
      await store.syncPlan(MANIFEST, [newJob('a', { kind: 'html_ads' })]);
      await store.write({ key: 'a', items: [itemOf(0, 'done'), itemOf(1, 'failed')] });
      await store.write({ key: 'a', items: [itemOf(1, 'done', 'r-again')] });
      expect((await store.items('a')).map((i) => [i.idx, i.state, i.remoteId])).toEqual([[0, 'done', null], [1, 'done', 'r-again']]);
    });
  });

  describe('money', () => {
    test('a done job with creditsUsed counts what it cost, for its job and for the run that sent it', async () => {
      const { store } = subject;
      const jobs = [newJob('a'), newJob('b')];
      await store.syncPlan(MANIFEST, jobs);
      const runId = await store.startRun('host', 1, null);
      await bring(store, 'a', 'done', { reserved: 9, creditsUsed: 4.5 });
      await bring(store, 'b', 'done', { reserved: 9, creditsUsed: 2 });
      const { totals, byJob, runs } = await store.money(jobs.map(placeOf));
      expect(totals.used).toEqual({ known: 6.5, unknown: 0 });
      expect(totals.counted).toBe(6.5);
      expect(totals.held.size).toBe(0);
      expect(totals.apart).toEqual({ superseded: 0, removed: 0, forgotten: 0 });
      expect([byJob.get('a'), byJob.get('b'), byJob.size]).toEqual([4.5, 2, 2]);
      expect(runs).toEqual(new Map([[runId, { known: 6.5, unknown: 0 }]]));
    });

    test("a plan that tells its jobs' places gets the same figures, a job outside it by its key", async () => {
      const { store } = subject;
      const [a, b, c] = [newJob('a'), newJob('b'), newJob('c')];
      await store.syncPlan(MANIFEST, [a, b, c]);
      await bring(store, 'a', 'done', { reserved: 9, creditsUsed: 4.5 });
      await bring(store, 'b', 'failed', { reserved: 7, creditsUsed: null });
      await bring(store, 'c', 'done', { reserved: 9, creditsUsed: 3 });
      // A streamed plan's scope (plan/job-index.ts scopedJobs) of a and b, as their index tells them.
      const keys = ['b', 'a'];
      const placed = Object.assign([b, a].map(placeOf), { ordinal: (key: string) => (keys.includes(key) ? keys.indexOf(key) : undefined) });
      const { byJob } = await store.money(placed);
      expect([byJob.get('a'), byJob.get('b'), byJob.get('c'), byJob.has('d'), byJob.size]).toEqual([4.5, null, 3, false, 3]);
    });

    test('a job that ended without a reported cost is of unknown cost, and counted at its reservation', async () => {
      const { store } = subject;
      const a = newJob('a');
      await store.syncPlan(MANIFEST, [a]);
      await bring(store, 'a', 'failed', { reserved: 7, creditsUsed: null });
      const { totals, byJob } = await store.money([placeOf(a)]);
      expect(totals.used).toEqual({ known: 0, unknown: 1 });
      expect(totals.counted).toBe(7);
      expect(byJob.get('a')).toBeNull();
    });

    test('a refund is recorded on the charge of its remote job', async () => {
      const { store } = subject;
      const a = newJob('a', { kind: 'html_ads' });
      await store.syncPlan(MANIFEST, [a]);
      await bring(store, 'a', 'done', { creditsUsed: 8 });
      await store.write({ key: 'a', items: [itemOf(0, 'failed', remoteIdOf('a'))], refund: { remoteId: remoteIdOf('a'), credits: 2, derived: true } });
      expect((await store.money([placeOf(a)])).totals.refunded).toEqual({ total: 2, derived: 2 });
    });

    test("a job outside the plan in a plan job's place is superseded: its spend counted apart", async () => {
      const { store } = subject;
      const old = newJob('old', { outputName: 'clip' });
      const edited = newJob('new', { outputName: 'clip' });
      await store.syncPlan(MANIFEST, [old]);
      await bring(store, 'old', 'done', { creditsUsed: 3 });
      await store.syncPlan(MANIFEST, [edited]);
      const { totals } = await store.money([placeOf(edited)]);
      expect(totals.used.known).toBe(3);
      expect(totals.apart.superseded).toBe(3);
    });
  });

  // Under the run lock a store may answer these two whole-manifest reads again from memory
  // (src/state/read-memo.ts): only while nothing was written since, whoever wrote it.
  describe('whole-manifest reads read again', () => {
    const lockOf = (token: string) => ({ name: MANIFEST, token, pid: 100, host: 'h', pidNamespace: 'ns-1', isAlive: () => true, heartbeatMs: 10_000, staleAfterMs: 60_000 });
    const statesOf = async (store: Store) => (await allStates(store)).map((row) => [row.key, row.status]).sort();
    /** Jobs a (done, 4 credits) and b (planned), the store holding the manifest's run lock. */
    const underLockWithOneDone = async () => {
      const { store } = subject;
      const jobs = [newJob('a'), newJob('b')];
      await store.syncPlan(MANIFEST, jobs);
      await store.takeLock(lockOf('t1'));
      await bring(store, 'a', 'done', { creditsUsed: 4 });
      return { store, jobs, places: jobs.map(placeOf) };
    };

    test("read twice with nothing written between, the answers are equal; after the store's own write, the second read has it", async () => {
      const { store, jobs, places } = await underLockWithOneDone();
      expect(await statesOf(store)).toEqual([['a', 'done'], ['b', 'planned']]);
      expect((await store.money(places)).totals.used).toEqual({ known: 4, unknown: 0 });
      expect(await statesOf(store)).toEqual([['a', 'done'], ['b', 'planned']]);
      expect(await store.money(places)).toEqual(await store.money(jobs.map(placeOf)));
      await bring(store, 'b', 'done', { creditsUsed: 2.5 });
      expect(await statesOf(store)).toEqual([['a', 'done'], ['b', 'done']]);
      expect((await store.money(places)).totals.used).toEqual({ known: 6.5, unknown: 0 });
    });

    test("a write by another store on the same state is seen by this store's next read, when this one holds no lock", async () => {
      const { store } = subject;
      const jobs = [newJob('a')];
      await store.syncPlan(MANIFEST, jobs);
      const places = jobs.map(placeOf);
      expect(await statesOf(store)).toEqual([['a', 'planned']]);
      expect((await store.money(places)).totals.used).toEqual({ known: 0, unknown: 0 });
      const other = await subject.beside();
      try {
        await bring(other, 'a', 'done', { creditsUsed: 3 });
      } finally {
        await other.close();
      }
      expect(await statesOf(store)).toEqual([['a', 'done']]);
      expect((await store.money(places)).totals.used).toEqual({ known: 3, unknown: 0 });
    });

    test('a claim, a lock beat or a recovery that found nothing leave the answers as they were; a forgotten job is gone from the next read', async () => {
      const { store, places } = await underLockWithOneDone();
      const before = await store.money(places);
      await store.claim(10);
      await store.beatLock(MANIFEST, 't1');
      expect(await store.recoverInterrupted(new Set(['a', 'b']), 'crash')).toEqual([]);
      expect(await store.money(places)).toEqual(before);
      expect(await statesOf(store)).toEqual([['a', 'done'], ['b', 'planned']]);
      await store.forget('a', { by: 'test' });
      expect(await statesOf(store)).toEqual([['b', 'planned']]);
      expect((await store.money(places)).totals.apart.forgotten).toBe(4);
    });
  });

  describe('webhook deliveries', () => {
    test('recordDelivery keeps the first remote id named on an unanswered attempt; inDoubtNamedByDelivery lists its job', async () => {
      const { store } = subject;
      await store.syncPlan(MANIFEST, [newJob('a'), newJob('b')]);
      await bring(store, 'a', 'submitting', { hookToken: 'tok-a' });
      await bring(store, 'b', 'submitting', { hookToken: 'tok-b' });
      await store.recoverInterrupted(new Set(['a', 'b']), 'crash');
      const asItWas = await store.recordDelivery('tok-a', { id: 'r-named', status: 'done' });
      expect(asItWas).toMatchObject({ jobKey: 'a', hookToken: 'tok-a', deliveredId: null });
      await store.recordDelivery('tok-a', { id: 'r-second' });
      const attempt = await store.lastAttempt('a');
      expect(attempt?.deliveredId).toBe('r-named');
      expect(await store.inDoubtNamedByDelivery()).toEqual(['a']);
      expect(await store.remoteIdOwner('r-named')).toEqual({ manifest: MANIFEST, key: 'a' });
      expect(await store.remoteIdOwner('r-named', attempt?.id ?? null)).toBeUndefined();
      expect(await store.remoteIdOwner('r-second')).toBeUndefined();
    });

    test('a delivery to an unknown token is none of the manifest’s, and a delivery to an answered attempt changes nothing', async () => {
      const { store } = subject;
      await store.syncPlan(MANIFEST, [newJob('a')]);
      await bring(store, 'a', 'submitted', { hookToken: 'tok-a' });
      expect(await store.recordDelivery('tok-unknown', { id: 'r-x' })).toBeUndefined();
      expect(await store.recordDelivery('tok-a', { id: 'r-other' })).toMatchObject({ jobKey: 'a', remoteId: remoteIdOf('a') });
      expect((await store.lastAttempt('a'))?.deliveredId).toBeNull();
      expect(await store.remoteIdOwner('r-other')).toBeUndefined();
      store.useManifest('other.yaml');
      expect(await store.attemptByHookToken('tok-a')).toBeUndefined();
    });
  });
}
