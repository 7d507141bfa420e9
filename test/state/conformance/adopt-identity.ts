import { describe, expect, test } from 'vitest';
import { stateAt, type Store } from '../../../src/state/index.js';
import { allStates, bring, fileOf, newJob, placeOf, type Subject } from './harness.js';
import { itemOf } from './plan-and-moves.js';

/** Where an older reelpipe's rows of the manifest `x` were keyed: its file's real path. */
const OLD = '/srv/a/x.yaml';
/** Another checkout's copy of it, also run by an older reelpipe. */
const COPY = '/srv/b/x.yaml';

/** What the reader is told of the paths in these tests: each manifest's declared identity. */
const identities = (known: Record<string, string>) => async (key: string) => known[key];

/** A lock taker (a dead holder's pid, another namespace: judged by its heartbeat alone). */
const taker = (name: string, token: string) => ({ name, token, pid: 100, host: 'h', pidNamespace: 'ns-1', isAlive: () => true, heartbeatMs: 10_000, staleAfterMs: 60_000 });

/** The jobs `store` scoped to `manifest` knows, by key and status. */
const jobsOf = async (store: Store, manifest: string) => (await allStates(store.useManifest(manifest))).map((j) => [j.key, j.status]).sort();

/**
 * StateReader.adoptIdentity: the rows an older reelpipe kept under a manifest's real path become
 * its identity's (`project/name`), whole, in one transaction, paying nothing again — or, when two
 * paths (or the identity and a path) would claim the same rows, nothing changes and the answer
 * says why. Rows are made through the Store's door, as an older reelpipe's runs made them.
 */
export function adoptIdentity(subject: Subject): void {
  describe('adoptIdentity', () => {
    test("re-keys every row of the path to the identity: jobs, attempts, files, items, money, hook runs, runs and the lock's name", async () => {
      const { store, clock } = subject;
      const jobs = ['a', 'b', 'c'].map((key) => newJob(key));
      await store.syncPlan(OLD, jobs);
      const runId = await store.startRun('build-7', 4242, null);
      await bring(store, 'a', 'downloaded', { creditsUsed: 6 });
      await store.write({ key: 'a', outputs: { urls: ['https://cdn.example/a/0.mp4'], places: [0] } });
      await store.recordDownload('a', 0, fileOf('a', 0));
      await bring(store, 'b', 'done', { creditsUsed: 4 });
      await store.write({ key: 'b', items: [itemOf(0, 'done'), itemOf(1, 'failed')] });
      const hook = await store.hookBegin('on_output', { jobKey: 'a', outputIdx: 0, sha256: 'sha-a-0' }, ['notify']);
      await store.hookFinish(hook, { ok: true, exitCode: 0, signal: null, timedOut: false, durationMs: 5, stdoutTail: '', stderrTail: '', error: null });
      await store.takeLock(taker(OLD, 't1'));
      const before = await store.useManifest(OLD).money(jobs.map(placeOf));
      await store.close();
      clock.advance(120_000);

      const adoption = await stateAt(subject.location).adoptIdentity('x', OLD, identities({}), clock);
      expect(adoption).toEqual({ adopted: { path: OLD, jobs: 3, runs: 1 } });

      const after = (await subject.restart()).useManifest('x');
      expect(await jobsOf(after, 'x')).toEqual([['a', 'downloaded'], ['b', 'done'], ['c', 'planned']]);
      expect(await jobsOf(after, OLD)).toEqual([]);
      after.useManifest('x');
      expect((await after.attempts('a')).map((a) => a.state)).toEqual(['answered']);
      expect((await after.outputs('a')).map((o) => o.sha256)).toEqual(['sha-a-0']);
      expect((await after.items('b')).map((i) => i.state)).toEqual(['done', 'failed']);
      expect((await after.hookLatest('a')).get(0)?.state).toBe('ok');
      // Nothing paid again, nothing lost: the money is the same figures under the new key, run by run.
      expect(before.runs.get(runId)).toEqual({ known: 10, unknown: 0 });
      expect(await after.money(jobs.map(placeOf))).toEqual(before);
      expect(await after.lockRow(OLD)).toBeUndefined();
      expect(await after.lockRow('x')).toMatchObject({ token: 't1', host: 'h' });
      // Its runs remember the file they ran from.
      const runs = await stateAt(subject.location).runs('x', 10, true);
      expect(runs.rows.map((r) => [r.id, r.host, r.manifestPath])).toEqual([[runId, 'build-7', OLD]]);
      expect((await stateAt(subject.location).runs(OLD, 10, true)).runs).toBe(0);
    });

    test('is a no-op once done, and for a state that holds nothing under a path of the identity', async () => {
      const { store, clock } = subject;
      await store.syncPlan(OLD, [newJob('a')]);
      await store.syncPlan('/srv/c/y.yaml', [newJob('b')]);
      await store.syncPlan('z', [newJob('c')]);
      const reader = stateAt(subject.location);
      const known = identities({ '/srv/c/y.yaml': 'y' });
      expect(await reader.adoptIdentity('x', OLD, known, clock)).toEqual({ adopted: { path: OLD, jobs: 1, runs: 0 } });
      expect(await reader.adoptIdentity('x', OLD, known, clock)).toEqual({ adopted: null });
      expect(await reader.adoptIdentity('z', '/srv/c/z.yaml', known, clock)).toEqual({ adopted: null });
      // Another manifest's path, mapped to another identity, is left where it is.
      expect(await jobsOf(store, '/srv/c/y.yaml')).toEqual([['b', 'planned']]);
    });

    test('adopts the path of another copy when this path has no rows of its own', async () => {
      const { store, clock } = subject;
      await store.syncPlan(COPY, [newJob('a')]);
      await bring(store, 'a', 'done');
      const adoption = await stateAt(subject.location).adoptIdentity('x', OLD, identities({ [COPY]: 'x' }), clock);
      expect(adoption).toEqual({ adopted: { path: COPY, jobs: 1, runs: 0 } });
      expect(await jobsOf(store, 'x')).toEqual([['a', 'done']]);
    });

    test('two paths of one identity, each with rows: refused, naming both, and nothing changes', async () => {
      const { store, clock } = subject;
      await store.syncPlan(OLD, [newJob('a')]);
      await store.syncPlan(COPY, [newJob('b')]);
      await store.takeLock(taker(COPY, 't1'));
      clock.advance(120_000);
      const adoption = await stateAt(subject.location).adoptIdentity('x', OLD, identities({ [COPY]: 'x' }), clock);
      expect(adoption).toEqual({ refused: 'paths', paths: [OLD, COPY] });
      expect(await jobsOf(store, OLD)).toEqual([['a', 'planned']]);
      expect(await jobsOf(store, COPY)).toEqual([['b', 'planned']]);
      expect(await jobsOf(store, 'x')).toEqual([]);
      expect(await store.lockRow(COPY)).toMatchObject({ token: 't1' });
    });

    test("rows under the identity and under one path: merged when no job is both's", async () => {
      const { store, clock } = subject;
      await store.syncPlan('x', [newJob('a')]);
      await store.startRun('h', 1, null, COPY);
      await store.syncPlan(OLD, [newJob('b')]);
      const adoption = await stateAt(subject.location).adoptIdentity('x', OLD, identities({}), clock);
      expect(adoption).toEqual({ adopted: { path: OLD, jobs: 1, runs: 0 } });
      expect(await jobsOf(store, 'x')).toEqual([['a', 'planned'], ['b', 'planned']]);
    });

    test("…and refused, naming a few of the jobs both record and where the identity last ran from, when some are both's", async () => {
      const { store, clock } = subject;
      await store.syncPlan('x', [newJob('a'), newJob('b')]);
      await store.startRun('h', 1, null, COPY);
      await store.syncPlan(OLD, [newJob('b'), newJob('c')]);
      await bring(store, 'b', 'done');
      const adoption = await stateAt(subject.location).adoptIdentity('x', OLD, identities({}), clock);
      expect(adoption).toEqual({ refused: 'jobs', path: OLD, keys: ['b'], identityPath: COPY });
      expect(await jobsOf(store, OLD)).toEqual([['b', 'done'], ['c', 'planned']]);
      expect(await jobsOf(store, 'x')).toEqual([['a', 'planned'], ['b', 'planned']]);
    });

    test("a path whose run still beats its lock (an older reelpipe at work) is left until it ends", async () => {
      const { store, clock } = subject;
      await store.syncPlan(OLD, [newJob('a')]);
      await store.startRun('build-7', 4242, null);
      await store.takeLock(taker(OLD, 't1'));
      const reader = stateAt(subject.location);
      expect(await reader.adoptIdentity('x', OLD, identities({}), clock)).toEqual({ refused: 'locked', path: OLD, host: 'h', pid: 100 });
      expect(await jobsOf(store, OLD)).toEqual([['a', 'planned']]);
      clock.advance(120_000);
      expect(await reader.adoptIdentity('x', OLD, identities({}), clock)).toEqual({ adopted: { path: OLD, jobs: 1, runs: 1 } });
    });

    test('startRun keeps the file a run was started from, with its host', async () => {
      const { store } = subject;
      await store.syncPlan('shop/x', [newJob('a')]);
      const first = await store.startRun('build-7', 1, null, OLD);
      const second = await store.startRun('build-8', 2, null);
      const runs = await stateAt(subject.location).runs('shop/x', 10, true);
      expect(runs.rows.map((r) => [r.id, r.host, r.manifestPath])).toEqual([[second, 'build-8', null], [first, 'build-7', OLD]]);
    });
  });
}
