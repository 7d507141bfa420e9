import { describe, expect, test } from 'vitest';
import { LockedError } from '../../../src/errors.js';
import { acquireLock, LockLostError, type JobStatus, type LockTaker, type Store } from '../../../src/state/index.js';
import { bring, MANIFEST, newJob, type Subject } from './harness.js';

const LOCK = '/manifests/conformance.yaml';

/** A taker of the lock: pid 100 on host h, in pid namespace ns-1, judging holders alive unless told. */
const taker = (token: string, extra: Partial<LockTaker & { pid: number }> = {}) => ({
  name: LOCK, token, pid: 100, host: 'h', pidNamespace: 'ns-1', isAlive: () => true, heartbeatMs: 10_000, staleAfterMs: 60_000, ...extra,
});

/** The run lock, and claims of ready jobs. */
export function lockAndClaims(subject: Subject): void {
  describe('the run lock', () => {
    test('takeLock holds the lock; lockRow says who holds it, since when, and its lease', async () => {
      const { store, clock } = subject;
      store.useManifest(MANIFEST);
      const runId = await store.startRun('h', 100, null);
      await store.takeLock(taker('t1'));
      expect(await store.lockRow(LOCK)).toEqual({
        name: LOCK, host: 'h', pid: 100, run_id: runId, acquired_at: clock.now(), heartbeat_at: clock.now(), token: 't1', pid_ns: 'ns-1', lease_ms: 60_000, member_of: null, idle_at: null,
      });
      expect(await store.lockRow('/manifests/other.yaml')).toBeUndefined();
    });

    test('a second taker is refused while the holder is fresh, from any store on the location', async () => {
      const { store, clock } = subject;
      await store.takeLock(taker('t1'));
      const other = await subject.beside();
      clock.advance(59_000);
      await expect(other.takeLock(taker('t2', { pid: 200 }))).rejects.toThrow(LockedError);
      await expect(store.takeLock(taker('t3', { pid: 300 }))).rejects.toThrow(/another run \(pid 100 on h\)/);
      expect((await other.lockRow(LOCK))?.token).toBe('t1');
    });

    test('beatLock refreshes the holder’s heartbeat, and answers false to anyone else', async () => {
      const { store, clock } = subject;
      await store.takeLock(taker('t1'));
      const acquiredAt = clock.now();
      clock.advance(10_000);
      expect(await store.beatLock(LOCK, 't1')).toBe(true);
      expect(await store.lockRow(LOCK)).toMatchObject({ acquired_at: acquiredAt, heartbeat_at: clock.now() });
      clock.advance(10_000);
      expect(await store.beatLock(LOCK, 't-other')).toBe(false);
      expect(await store.lockRow(LOCK)).toMatchObject({ token: 't1', heartbeat_at: clock.now() - 10_000 });
    });

    test('a holder whose heartbeat went stale is broken by the next taker, and its beats fail from then on', async () => {
      const { store, clock } = subject;
      await store.takeLock(taker('t1'));
      clock.advance(60_001);
      await store.takeLock(taker('t2', { pid: 200, host: 'elsewhere' }));
      expect(await store.lockRow(LOCK)).toMatchObject({ token: 't2', pid: 200, host: 'elsewhere', acquired_at: clock.now() });
      expect(await store.beatLock(LOCK, 't1')).toBe(false);
    });

    test('a holder whose pid is dead in our pid namespace on this host is broken at once', async () => {
      const { store } = subject;
      await store.takeLock(taker('t1'));
      await expect(store.takeLock(taker('t2', { pid: 200, pidNamespace: 'ns-2', isAlive: () => false }))).rejects.toThrow(LockedError);
      await store.takeLock(taker('t3', { pid: 300, isAlive: () => false }));
      expect((await store.lockRow(LOCK))?.token).toBe('t3');
    });

    test('releaseLock gives up only our own lock; released, it can be taken again', async () => {
      const { store } = subject;
      await store.takeLock(taker('t1'));
      await store.releaseLock(LOCK, 't-other');
      expect((await store.lockRow(LOCK))?.token).toBe('t1');
      await store.releaseLock(LOCK, 't1');
      expect(await store.lockRow(LOCK)).toBeUndefined();
      await store.takeLock(taker('t2', { pid: 200 }));
      expect((await store.lockRow(LOCK))?.token).toBe('t2');
    });

    test('forceUnlock removes the lock only while the same holding has it', async () => {
      const { store } = subject;
      await store.takeLock(taker('t1'));
      expect(await store.forceUnlock(LOCK, 't-seen-earlier', { by: 'test' })).toBe(false);
      expect((await store.lockRow(LOCK))?.token).toBe('t1');
      expect(await store.forceUnlock(LOCK, 't1', { by: 'test' })).toBe(true);
      expect(await store.lockRow(LOCK)).toBeUndefined();
      expect(await store.forceUnlock(LOCK, 't1', { by: 'test' })).toBe(false);
    });

    test('acquireLock on the store: a second run is refused while the first holds it, and released it is free', async () => {
      const { store } = subject;
      const other = await subject.beside();
      const held = await acquireLock(store, { name: LOCK, token: 'run-1', pid: 100, host: 'h', isAlive: () => true });
      await expect(acquireLock(other, { name: LOCK, token: 'run-2', pid: 200, host: 'h', isAlive: () => true })).rejects.toThrow(LockedError);
      expect(await held.beat()).toBe(true);
      await held.release();
      expect(await other.lockRow(LOCK)).toBeUndefined();
      const second = await acquireLock(other, { name: LOCK, token: 'run-2', pid: 200, host: 'h', isAlive: () => true });
      expect((await store.lockRow(LOCK))?.token).toBe('run-2');
      await second.release();
    });
  });

  describe('writes fenced by the run lock', () => {
    const holder = (token: string) => ({ ...taker(token), name: MANIFEST });

    test("once another store breaks the lock, the first store's job writes are refused with LockLostError and nothing of them is written", async () => {
      const { store } = subject;
      await store.syncPlan(MANIFEST, [newJob('a'), newJob('b'), newJob('c')]);
      await store.takeLock(holder('t1'));
      await bring(store, 'b', 'submitted');
      const other = await subject.beside();
      expect(await other.forceUnlock(MANIFEST, 't1', { by: 'test' })).toBe(true);
      await other.takeLock(holder('t2'));
      await expect(store.recordIntent({ key: 'a', request: { script: 'a' }, hookToken: null, pathId: null, creditsReserved: 5 })).rejects.toBeInstanceOf(LockLostError);
      await expect(store.write({ key: 'b', move: { to: 'running', change: { remoteStatus: 'running' }, type: 'job:status' } })).rejects.toBeInstanceOf(LockLostError);
      await expect(store.writeAll([{ key: 'c', move: { to: 'rejected', change: { failedReason: 'x' }, type: 'job:rejected' } }])).rejects.toBeInstanceOf(LockLostError);
      expect((await other.jobs(['a', 'b', 'c'])).map((row) => [row.key, row.status, row.attemptCount])).toEqual([['a', 'planned', 0], ['b', 'submitted', 1], ['c', 'planned', 0]]);
      // The store that holds the lock now writes as ever.
      expect(typeof (await other.recordIntent({ key: 'a', request: { script: 'a' }, hookToken: null, pathId: null, creditsReserved: 5 }))).toBe('number');
    });

    test("a creation answer the fenced store could not record is kept as observed on its attempt: unfenced, the first named wins, logged", async () => {
      const { store } = subject;
      await store.syncPlan(MANIFEST, [newJob('a'), newJob('b')]);
      await store.takeLock(holder('t1'));
      const attempt = await store.recordIntent({ key: 'a', request: { script: 'a' }, hookToken: null, pathId: null, creditsReserved: 5 });
      await bring(store, 'b', 'submitted');
      const other = await subject.beside();
      await other.forceUnlock(MANIFEST, 't1', { by: 'test' });
      await other.takeLock(holder('t2'));
      await expect(store.write({ key: 'a', attempt: { id: attempt, state: 'answered', remoteId: 'r-a' }, move: { to: 'submitted', change: { remoteId: 'r-a' }, type: 'job:answered' } })).rejects.toBeInstanceOf(LockLostError);
      expect(await store.observeAnswer('a', attempt, 'r-a', 'the lock was lost')).toBe(true);
      expect(await store.observeAnswer('a', attempt, 'r-other', 'again')).toBe(false);
      expect(await other.lastAttempt('a')).toMatchObject({ id: attempt, remoteId: null, deliveredId: 'r-a' });
      expect((await other.job('a'))?.status).toBe('submitting');
      // An attempt whose answer was recorded takes no other name.
      const b = (await other.lastAttempt('b'))!;
      expect(await store.observeAnswer('b', b.id, 'r-late', 'late')).toBe(false);
      // Nor one settled since: proved absent, its job planned again — the late id is said out loud instead.
      await other.write({ key: 'a', attempt: { id: attempt, state: 'not_sent', error: 'absent' }, move: { to: 'planned', type: 'job:not-created' } });
      const c = await other.recordIntent({ key: 'a', request: { script: 'a' }, hookToken: null, pathId: null, creditsReserved: 5 });
      expect(await store.observeAnswer('a', attempt, 'r-older', 'late')).toBe(false);
      expect(await store.observeAnswer('a', c, 'r-newer', 'late')).toBe(true);
    });

    test('a store that released its lock, or never took one, is not fenced', async () => {
      const { store } = subject;
      await store.syncPlan(MANIFEST, [newJob('a'), newJob('b')]);
      await store.takeLock(holder('t1'));
      await store.releaseLock(MANIFEST, 't1');
      await bring(store, 'a', 'submitted');
      const other = await subject.beside();
      await bring(other, 'b', 'submitted');
      expect((await store.job('b'))?.status).toBe('submitted');
    });
  });

  describe('claims', () => {
    /** Plan order, and where each job stands: sent jobs between planned ones of several priorities. */
    const PLAN: [key: string, status: JobStatus, priority: number][] = [
      ['p1', 'planned', 0], ['s1', 'submitted', 0], ['p2', 'planned', 5], ['d', 'done', 0], ['p3', 'planned', 0], ['s2', 'in_doubt', 0],
      ['f', 'failed', 0], ['x', 'planned', 9], ['r', 'running', 0], ['p4', 'planned', 5], ['dl', 'downloaded', 0], ['sub', 'submitting', 0],
      ['rj', 'rejected', 0], ['sx', 'submitted', 0],
    ];
    /** The plan recorded again without x and sx: the run's plan, which claims hand out. */
    const WITHOUT = new Set(['x', 'sx']);
    /** The ready order: sent jobs in plan order, then planned ones by priority descending, then plan order. */
    const READY = [
      { key: 's1', status: 'submitted' }, { key: 's2', status: 'in_doubt' }, { key: 'r', status: 'running' }, { key: 'sub', status: 'submitting' },
      { key: 'p2', status: 'planned' }, { key: 'p4', status: 'planned' }, { key: 'p1', status: 'planned' }, { key: 'p3', status: 'planned' },
    ];
    const record = (store: Store, left: ReadonlySet<string> = new Set()) =>
      store.syncPlan(MANIFEST, PLAN.filter(([key]) => !left.has(key)).map(([key, , priority]) => newJob(key, { priority })));
    const plan = async () => {
      const { store } = subject;
      await record(store);
      for (const [key, status] of PLAN) await bring(store, key, status);
      await record(store, WITHOUT);
    };

    test('claim answers the ready jobs of the plan last recorded: sent ones first in plan order, then planned by priority descending, then plan order', async () => {
      await plan();
      expect(await subject.store.claim(100)).toEqual(READY);
    });

    test('each job is claimed at most once per run: a second claim answers the rest, then nothing', async () => {
      const { store } = subject;
      await plan();
      expect(await store.claim(3)).toEqual(READY.slice(0, 3));
      expect(await store.claim(3)).toEqual(READY.slice(3, 6));
      expect(await store.claim(3)).toEqual(READY.slice(6));
      expect(await store.claim(3)).toEqual([]);
    });

    test('a job done, downloaded, failed or rejected is never claimed, nor one the plan last recorded left out (planned or sent); recorded in the plan again, it is', async () => {
      const { store } = subject;
      await plan();
      const claimed = (await store.claim(100)).map((c) => c.key);
      for (const key of ['d', 'dl', 'f', 'rj', 'x', 'sx']) expect(claimed).not.toContain(key);
      await record(store);
      expect(await store.claim(100)).toEqual([{ key: 'sx', status: 'submitted' }, { key: 'x', status: 'planned' }]);
      await record(store, new Set(['x']));
      expect((await store.job('x'))?.status).toBe('planned');
      await store.startRun('h', 1, null);
      expect((await store.claim(100)).map((c) => c.key)).not.toContain('x');
    });

    test('with downloads, a job finished and not downloaded (done) is claimed too, among the sent ones; never a downloaded one', async () => {
      await plan();
      const claimed = await subject.store.claim(100, { downloads: true });
      expect(claimed.map((c) => c.key)).toEqual(['s1', 'd', 's2', 'r', 'sub', 'p2', 'p4', 'p1', 'p3']);
      expect(claimed.map((c) => c.key)).not.toContain('dl');
    });

    test('a job claimed once in a run is not claimed again by that run, whatever it moved to', async () => {
      const { store } = subject;
      await store.syncPlan(MANIFEST, [newJob('a'), newJob('b')]);
      await store.startRun('h', 1, null);
      expect(await store.claim(1)).toEqual([{ key: 'a', status: 'planned' }]);
      await bring(store, 'a', 'submitted');
      expect(await store.claim(10)).toEqual([{ key: 'b', status: 'planned' }]);
      expect(await store.claim(10)).toEqual([]);
    });

    test('another run claims them again, once', async () => {
      const { store } = subject;
      await plan();
      await store.startRun('h', 1, null);
      expect(await store.claim(100)).toEqual(READY);
      expect(await store.claim(100)).toEqual([]);
      const second = await store.startRun('h', 2, null);
      expect(store.runId).toBe(second);
      expect(await store.claim(100)).toEqual(READY);
      expect(await store.claim(100)).toEqual([]);
    });

    test('claims belong to the run, not the store object: another store acting for the run (forRun) claims the rest', async () => {
      const { store } = subject;
      await plan();
      const runId = await store.startRun('h', 1, null);
      expect(await store.claim(3)).toEqual(READY.slice(0, 3));
      const other = (await subject.beside()).forRun(runId);
      expect(other.runId).toBe(runId);
      expect(await other.claim(100)).toEqual(READY.slice(3));
      expect(await store.claim(100)).toEqual([]);
    });
  });
}
