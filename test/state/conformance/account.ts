import { describe, expect, test } from 'vitest';
import { AccountLimitError, NO_LIMITS, type Intent, type Store } from '../../../src/state/index.js';
import { bring, MANIFEST, newJob, sentRequest, type Subject } from './harness.js';

const HOUR = 3_600_000;
const LIVES = { ai_short: 2 * HOUR };

/** An intent that asks the account first, holding `reserved` credits. */
const gated = (key: string, reserved = 5): Intent => ({ key, request: sentRequest(key), hookToken: null, pathId: null, creditsReserved: reserved, gate: { lives: LIVES } });

/** What an intent came to: its attempt, or the limit that refused it. */
async function ask(store: Store, key: string, reserved = 5): Promise<number | 'concurrency' | 'credits'> {
  try {
    return await store.recordIntent(gated(key, reserved));
  } catch (error) {
    if (error instanceof AccountLimitError) return error.limit;
    throw error;
  }
}

/** The account every manifest on one state shares: its limits, its slots and its cap, judged in the intent's transaction. */
export function account(subject: Subject): void {
  describe('the account', () => {
    test('limits start unset; account set changes only what it is given, and null clears', async () => {
      const { store, clock } = subject;
      expect(await store.account()).toEqual(NO_LIMITS);
      expect(await store.setAccount({ concurrency: 12, maxCredits: 100, per: 'day' })).toEqual({ concurrency: 12, maxCredits: 100, per: 'day', rate: null, updatedAt: clock.now() });
      clock.advance(1_000);
      await store.setAccount({ rate: 4, per: null });
      expect(await store.account()).toEqual({ concurrency: 12, maxCredits: 100, per: null, rate: 4, updatedAt: clock.now() });
      await store.setAccount({ concurrency: null });
      expect((await (await subject.beside()).account()).concurrency).toBeNull();
    });

    test('with every slot in use an intent is refused and nothing of it is written; a job that ends frees its slot', async () => {
      const { store } = subject;
      await store.syncPlan(MANIFEST, ['a', 'b', 'c'].map((key) => newJob(key)));
      await store.setAccount({ concurrency: 2 });
      expect(typeof (await ask(store, 'a'))).toBe('number');
      expect(typeof (await ask(store, 'b'))).toBe('number');
      expect(await ask(store, 'c')).toBe('concurrency');
      expect(await store.job('c')).toMatchObject({ status: 'planned', attemptCount: 0 });
      expect(await store.attempts('c')).toEqual([]);
      await bring(store, 'a', 'done', { from: 'submitting' });
      expect(typeof (await ask(store, 'c'))).toBe('number');
      expect((await store.accountView(LIVES)).total.slots).toBe(2);
    });

    test('an intent that does not ask is not judged (a run started before any limit was set)', async () => {
      const { store } = subject;
      await store.syncPlan(MANIFEST, ['a', 'b'].map((key) => newJob(key)));
      await store.setAccount({ concurrency: 1, maxCredits: 1 });
      await bring(store, 'a', 'submitting');
      expect(await ask(store, 'b')).toBe('concurrency');
    });

    test('every manifest on the state spends from one cap: a reservation that would pass it is refused', async () => {
      const { store } = subject;
      await store.syncPlan(MANIFEST, ['a', 'c'].map((key) => newJob(key)));
      const other = await subject.beside();
      await other.syncPlan('other.yaml', [newJob('b')]);
      await store.setAccount({ maxCredits: 12 });
      expect(typeof (await ask(store, 'a'))).toBe('number');
      expect(typeof (await ask(other, 'b'))).toBe('number');
      expect(await ask(store, 'c')).toBe('credits');
      // a costs 1 in the end: 1 spent + 5 held + 5 asked = 11, within 12.
      await bring(store, 'a', 'done', { creditsUsed: 1, from: 'submitting' });
      expect(typeof (await ask(store, 'c'))).toBe('number');
      const view = await store.accountView(LIVES);
      expect(view.manifests.map((m) => [m.manifest, m.spent, m.held, m.slots])).toEqual([
        [MANIFEST, 1, 5, 1],
        ['other.yaml', 0, 5, 1],
      ]);
      expect(view.total).toMatchObject({ spent: 1, held: 10, slots: 2 });
    });

    test('two stores asking for the last slot at once: one is granted', async () => {
      const { store } = subject;
      await store.syncPlan(MANIFEST, ['a', 'b'].map((key) => newJob(key)));
      const other = await subject.beside();
      await store.setAccount({ concurrency: 1 });
      const answers = await Promise.all([ask(store, 'a'), ask(other, 'b')]);
      expect(answers.filter((a) => typeof a === 'number')).toHaveLength(1);
      expect(answers.filter((a) => a === 'concurrency')).toHaveLength(1);
    });

    test("a job in doubt keeps its slot for its kind's slot life, then gives it back once, and is listed until then", async () => {
      const { store, clock } = subject;
      await store.syncPlan(MANIFEST, ['a', 'b'].map((key) => newJob(key)));
      await store.setAccount({ concurrency: 1 });
      const since = clock.now();
      expect(typeof (await ask(store, 'a'))).toBe('number');
      await bring(store, 'a', 'in_doubt', { from: 'submitting' });
      expect(await ask(store, 'b')).toBe('concurrency');
      expect((await store.accountView(LIVES)).doubtSlots).toEqual([{ manifest: MANIFEST, key: 'a', since, until: since + 2 * HOUR }]);
      clock.advance(2 * HOUR);
      expect(typeof (await ask(store, 'b'))).toBe('number');
      const view = await store.accountView(LIVES);
      expect(view.doubtSlots).toEqual([]);
      expect(view.total.slots).toBe(1);
      // Still in doubt, its money still held: only its slot was given back.
      expect(view.total.held).toBe(10);
    });

    test("a run's own scaled slot lives free only its own manifest's slots, never another's", async () => {
      const { store, clock } = subject;
      await store.syncPlan(MANIFEST, [newJob('a'), newJob('c')]);
      const other = await subject.beside();
      await other.syncPlan('other.yaml', [newJob('b')]);
      await store.setAccount({ concurrency: 1 });
      expect(typeof (await ask(store, 'a'))).toBe('number');
      await bring(store, 'a', 'in_doubt', { from: 'submitting' });
      clock.advance(1_000);
      const scaled = { lives: LIVES, own: { manifest: 'other.yaml', lives: { ai_short: 10 } } };
      await expect(other.recordIntent({ ...gated('b'), gate: scaled })).rejects.toMatchObject({ limit: 'concurrency' });
      // Its own manifest's run, at that scale, gives the slot back and takes it.
      expect(typeof (await store.recordIntent({ ...gated('c'), gate: { lives: LIVES, own: { manifest: MANIFEST, lives: { ai_short: 10 } } } }))).toBe('number');
      expect((await store.accountView(LIVES)).total.slots).toBe(1);
    });

    test('the shared rate is split between the runs holding a lock, and a cooldown one run shares holds them all', async () => {
      const { store } = subject;
      expect(await store.sharedRate()).toEqual({ rate: null, live: 0, cooldownMs: 0 });
      await store.setAccount({ rate: 10 });
      const other = await subject.beside();
      const taker = (name: string) => ({ name, token: `t-${name}`, pid: 100, host: 'h', pidNamespace: 'ns-1', isAlive: () => true, heartbeatMs: 10_000, staleAfterMs: 60_000 });
      await store.takeLock(taker('team-a'));
      await other.takeLock(taker('team-b'));
      expect(await other.sharedRate()).toMatchObject({ rate: 10, live: 2, cooldownMs: 0 });
      await store.shareCooldown(5_000);
      // A shorter cooldown does not cut a longer one short.
      await other.shareCooldown(1_000);
      const held = (await other.sharedRate()).cooldownMs;
      expect(held).toBeGreaterThan(4_000);
      expect(held).toBeLessThanOrEqual(5_000);
    });

    test("a run counts as live within its own lease: one silent past a short lease no longer takes a share", async () => {
      const { store, clock } = subject;
      await store.setAccount({ rate: 10 });
      const other = await subject.beside();
      const taker = (name: string, staleAfterMs: number) => ({ name, token: `t-${name}`, pid: 100, host: 'h', pidNamespace: 'ns-1', isAlive: () => true, heartbeatMs: staleAfterMs / 6, staleAfterMs });
      await store.takeLock(taker('team-a', 60_000));
      await other.takeLock(taker('team-b', 2_000));
      expect((await store.sharedRate()).live).toBe(2);
      clock.advance(3_000);
      expect((await store.sharedRate()).live).toBe(1);
      expect((await store.accountView(LIVES)).total.hosts).toEqual(['h']);
    });
  });
}
