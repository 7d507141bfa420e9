import { describe, expect, test } from 'vitest';
import { allStates, bring, MANIFEST, newJob, placeOf, remoteIdOf, sentRequest, type Subject } from './harness.js';
import { itemOf } from './plan-and-moves.js';

/** Recovery of jobs a dead run left mid-POST, what survives a reopen, the state's identity and its schema. */
export function recoveryAndIdentity(subject: Subject): void {
  describe('recovery of interrupted jobs', () => {
    const why = 'the run ended mid-POST';

    test('recoverInterrupted moves the submitting jobs of keys to in_doubt with the reason, closing their intents in doubt', async () => {
      const { store, clock } = subject;
      await store.syncPlan(MANIFEST, ['a', 'b', 'c', 'd', 'e'].map((key) => newJob(key)));
      for (const key of ['a', 'b', 'c']) await bring(store, key, 'submitting', { reserved: 3 });
      await bring(store, 'e', 'submitted');
      clock.advance(10_000);
      const rows = await store.recoverInterrupted(new Set(['a', 'b', 'd', 'e']), why);
      expect(rows.map((row) => [row.key, row.status, row.doubtReason]).sort()).toEqual([['a', 'in_doubt', why], ['b', 'in_doubt', why]]);
      for (const key of ['a', 'b']) {
        const attempt = await store.lastAttempt(key);
        expect(attempt).toMatchObject({ state: 'in_doubt', answeredAt: clock.now(), remoteId: null });
        expect(attempt?.error).toEqual(expect.any(String));
      }
      // Outside keys, or not submitting: left alone.
      expect((await store.job('c'))?.status).toBe('submitting');
      expect((await store.lastAttempt('c'))?.state).toBe('intent');
      expect((await store.job('d'))?.status).toBe('planned');
      expect((await store.job('e'))?.status).toBe('submitted');
      // A job in doubt may exist at the service: its reservation stays held (as every open charge's).
      const { totals } = await store.money(['a', 'b', 'c', 'd', 'e'].map((key) => placeOf(newJob(key))));
      expect([...totals.held].sort()).toEqual([['a', 3], ['b', 3], ['c', 3], ['e', 5]]);
    });

    test('what it recovered is durable: the store opened anew finds it', async () => {
      const { store } = subject;
      await store.syncPlan(MANIFEST, [newJob('a')]);
      await bring(store, 'a', 'submitting');
      await store.recoverInterrupted(new Set(['a']), why);
      const reopened = await subject.restart();
      expect(await reopened.job('a')).toMatchObject({ status: 'in_doubt', doubtReason: why });
      expect((await reopened.lastAttempt('a'))?.state).toBe('in_doubt');
      expect(await reopened.jobsWithStatus(['in_doubt'])).toHaveLength(1);
    });

    test('recovering again finds nothing more to move', async () => {
      const { store } = subject;
      await store.syncPlan(MANIFEST, [newJob('a')]);
      await bring(store, 'a', 'submitting');
      expect(await store.recoverInterrupted(new Set(['a']), why)).toHaveLength(1);
      expect(await store.recoverInterrupted(new Set(['a']), why)).toEqual([]);
    });

    test('a job leaving doubt loses its reason', async () => {
      const { store } = subject;
      await store.syncPlan(MANIFEST, [newJob('a')]);
      await bring(store, 'a', 'in_doubt');
      expect((await store.job('a'))?.doubtReason).toBe('no answer');
      const written = await store.write({ key: 'a', move: { to: 'submitted', change: { remoteId: 'r-found' }, type: 'job:reconciled' } });
      expect(written.row).toMatchObject({ status: 'submitted', remoteId: 'r-found', doubtReason: null });
    });
  });

  describe('durability across reopen', () => {
    test('an intent and its remote id are there after the store is closed and opened again', async () => {
      const { store } = subject;
      await store.syncPlan(MANIFEST, [newJob('a'), newJob('b')]);
      await bring(store, 'a', 'submitted', { reserved: 6, hookToken: 'tok-a' });
      const bId = await store.recordIntent({ key: 'b', request: sentRequest('b'), hookToken: null, pathId: 'p-b', creditsReserved: 2 });
      const before = { a: await store.job('a'), b: await store.job('b'), attempts: await store.attempts('a') };
      const reopened = await subject.restart();
      expect(await reopened.job('a')).toEqual(before.a);
      expect(await reopened.job('b')).toEqual(before.b);
      expect(await reopened.attempts('a')).toEqual(before.attempts);
      expect(await reopened.lastAttempt('b')).toMatchObject({ id: bId, state: 'intent', request: sentRequest('b') });
      expect(await reopened.remoteIdOwner(remoteIdOf('a'))).toEqual({ manifest: MANIFEST, key: 'a' });
      expect((await reopened.attemptByHookToken('tok-a'))?.jobKey).toBe('a');
      const { totals } = await reopened.money([placeOf(newJob('a')), placeOf(newJob('b'))]);
      expect([...totals.held].sort()).toEqual([['a', 6], ['b', 2]]);
    });

    test('a write that settled is seen by another store open on the same location', async () => {
      const { store } = subject;
      await store.syncPlan(MANIFEST, [newJob('a')]);
      const other = await subject.beside();
      await bring(store, 'a', 'submitted');
      expect(await other.job('a')).toMatchObject({ status: 'submitted', remoteId: remoteIdOf('a') });
      await store.write({ key: 'a', items: [itemOf(0, 'done')], outputs: 'items' });
      expect((await other.items('a')).map((i) => i.item)).toEqual(['style-0']);
      expect((await other.outputs('a')).map((o) => o.url)).toEqual(['https://cdn.example/ad-0.html']);
    });

    test('close commits what is queued, and a second close does nothing', async () => {
      const { store } = subject;
      await store.syncPlan(MANIFEST, [newJob('a')]);
      const pending = store.write({ key: 'a', move: { to: 'submitting', type: 'job:intent' } });
      await store.close();
      expect((await pending).row.status).toBe('submitting');
      await expect(store.close()).resolves.toBeUndefined();
      const reopened = await subject.restart();
      expect((await reopened.job('a'))?.status).toBe('submitting');
    });
  });

  describe('identity', () => {
    test("identity(location) is stable across reopen and counts the manifest's jobs", async () => {
      const { store, location } = subject;
      await store.syncPlan(MANIFEST, [newJob('a'), newJob('b'), newJob('c')]);
      const first = await store.identity(location);
      expect(first).toMatchObject({ path: location, jobsKnown: 3 });
      expect(first.id).not.toBe('');
      expect(first.createdAt).toEqual(expect.any(String));
      const reopened = await subject.restart();
      expect(await reopened.identity(location)).toEqual(first);
    });

    test("it counts only the manifest's jobs", async () => {
      const { store, location } = subject;
      await store.syncPlan(MANIFEST, [newJob('a'), newJob('b')]);
      await store.syncPlan('other.yaml', [newJob('x')]);
      expect((await store.identity(location)).jobsKnown).toBe(1);
      store.useManifest('third.yaml');
      expect((await store.identity(location)).jobsKnown).toBe(0);
      store.useManifest(MANIFEST);
      expect((await store.identity(location)).jobsKnown).toBe(2);
    });

    test('two states have two identities', async () => {
      const { store, location } = subject;
      store.useManifest(MANIFEST);
      const other = await subject.elsewhere();
      other.store.useManifest(MANIFEST);
      const mine = await store.identity(location);
      const theirs = await other.store.identity(other.location);
      expect(theirs.id).not.toBe('');
      expect(theirs.id).not.toBe(mine.id);
    });
  });

  describe('migrations', () => {
    test('a fresh location opens at the newest schema: empty, with an identity, and every part of the state answering', async () => {
      const { store, location } = subject;
      store.useManifest(MANIFEST);
      expect(await allStates(store)).toEqual([]);
      expect(await store.identity(location)).toMatchObject({ path: location, jobsKnown: 0 });
      // What the newest migrations made: plan order and priorities (claims), items, hooks, charges, attempts' runs.
      await store.syncPlan(MANIFEST, [newJob('a'), newJob('b', { priority: 3, plannedItems: { from: 'b0', items: ['s1'] } })]);
      expect(await store.claim(1)).toEqual([{ key: 'b', status: 'planned' }]);
      await store.write({ key: 'a', items: [itemOf(0, 'failed')] });
      expect(await store.items('a')).toHaveLength(1);
      expect((await store.hookLatest('a')).size).toBe(0);
      expect((await store.money([])).totals.used).toEqual({ known: 0, unknown: 0 });
      expect(await store.retriesInRun('a')).toBe(0);
    });

    test('a reopen applies nothing new: the rows and the identity are as they were', async () => {
      const { store, location, clock } = subject;
      await store.syncPlan(MANIFEST, [newJob('a'), newJob('b')]);
      await bring(store, 'a', 'done');
      const before = { states: await allStates(store), identity: await store.identity(location), a: await store.job('a') };
      clock.advance(60_000);
      let reopened = await subject.restart();
      reopened = await subject.restart();
      expect(await allStates(reopened)).toEqual(before.states);
      expect(await reopened.job('a')).toEqual(before.a);
      expect(await reopened.identity(location)).toEqual(before.identity);
    });
  });
}
