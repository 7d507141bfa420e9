import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { JobStatus } from '../../../src/state/index.js';
import { PgStore } from '../../../src/state/postgres/pg-store.js';
import { ManualClock } from '../../../src/util/clock.js';
import { freshPgDatabase, type PgDatabase } from '../../helpers/pg-database.js';
import { bring, fileOf, MANIFEST, newJob } from '../conformance/harness.js';

/**
 * The rows a PostgreSQL store holds (pg-held-rows.ts): under the manifest's run lock, a job it has
 * just written is answered from its own commit, with no round trip — and that answer is always the
 * row the database has, as another store (another process) reads it.
 */

const LOCK = { name: MANIFEST, token: 'token-a', pid: 4242, host: 'host-a', pidNamespace: 'ns-1', isAlive: () => true, heartbeatMs: 10_000, staleAfterMs: 60_000 };

let database: PgDatabase;
let clock: ManualClock;
let store: PgStore;
let other: PgStore;

beforeEach(async () => {
  database = await freshPgDatabase();
  clock = new ManualClock();
  store = (await PgStore.open(database.url, clock)).useManifest(MANIFEST);
  other = (await PgStore.open(database.url, clock)).useManifest(MANIFEST);
  await store.syncPlan(MANIFEST, ['a', 'b', 'c'].map((key) => newJob(key)));
});

afterEach(async () => {
  await store.close();
  await other.close();
  await database.drop();
});

/** The store's answer for `key`, the round trips it cost, and the database's row as another store reads it. */
async function readBoth(key: string) {
  const before = store.roundTrips;
  const held = await store.job(key);
  return { held, trips: store.roundTrips - before, truth: await other.job(key) };
}

/** Asserts the store answers `key` in `trips` round trips (0: from what it holds) with the row the database has; resolves with that answer. */
async function expectAnswer(key: string, trips: number) {
  const read = await readBoth(key);
  expect(read.trips).toBe(trips);
  expect(read.held).toEqual(read.truth);
  return read.held;
}

describe('under the run lock', () => {
  beforeEach(() => store.takeLock(LOCK));

  test.each<JobStatus>(['submitting', 'in_doubt', 'submitted', 'running', 'done'])(
    'a job just brought to %s is answered without a round trip, as the database has it',
    async (status) => {
      await bring(store, 'a', status);
      const held = await expectAnswer('a', 0);
      expect(held?.status).toBe(status);
    },
  );

  test.each<JobStatus>(['failed', 'rejected', 'downloaded', 'hook_failed'])('a job at its end (%s) is not held: it is read from the database', async (status) => {
    await bring(store, 'a', status);
    const held = await expectAnswer('a', 1);
    expect(held?.status).toBe(status);
  });

  test('the jobs it claims are answered without a round trip, as the database has them', async () => {
    await bring(other, 'b', 'submitted');
    const claimed = await store.claim(10);
    expect(claimed.map((job) => job.key)).toEqual(['b', 'a', 'c']);
    for (const key of ['a', 'b', 'c']) {
      await expectAnswer(key, 0);
    }
  });

  test('a job it has not written since the lock was taken is read from the database', async () => {
    await bring(other, 'c', 'submitted');
    await expectAnswer('c', 1);
  });

  test("a download's files, read with its links, answer the next outputs() once, without a round trip", async () => {
    await bring(store, 'a', 'done');
    const links = { urls: ['https://cdn.example/a.mp4'], places: [0] };
    await store.write({ key: 'a', outputs: links });
    await store.recordDownload('a', 0, fileOf('a', 0));
    // The links as recorded: answered from one read, which also brings the job's files.
    await store.write({ key: 'a', outputs: links });
    const before = store.roundTrips;
    const files = await store.outputs('a');
    expect(store.roundTrips - before).toBe(0);
    expect(files).toEqual(await other.outputs('a'));
    expect(files[0]?.sha256).toBe(fileOf('a', 0).sha256);
    // Asked again, they come from the database.
    await store.outputs('a');
    expect(store.roundTrips - before).toBe(1);
  });

  test('a write that names the job between the read of its links and outputs() makes outputs() read the database', async () => {
    await bring(store, 'a', 'done');
    const links = { urls: ['https://cdn.example/a.mp4'], places: [0] };
    await store.write({ key: 'a', outputs: links });
    await store.write({ key: 'a', outputs: links });
    await store.recordDownload('a', 0, fileOf('a', 0));
    const files = await store.outputs('a');
    expect(files[0]?.sha256).toBe(fileOf('a', 0).sha256);
    expect(files).toEqual(await other.outputs('a'));
  });

  test("a wave that looks at a job's files reads them with its lock, in the same round trip", async () => {
    const links = { urls: ['https://cdn.example/x.mp4'], places: [0] };
    const finish = async (on: PgStore, key: string) => {
      await bring(on, key, 'done');
      await on.write({ key, outputs: links });
      const before = on.roundTrips;
      const finished = await on.finishDownload(key, { idx: 0, file: fileOf(key, 0) }, 1);
      return { trips: on.roundTrips - before, status: 'row' in finished ? finished.row.status : 'missing' };
    };
    const locked = await finish(store, 'a');
    const unlocked = await finish(other, 'b');
    expect(locked).toEqual({ trips: 2, status: 'downloaded' });
    expect(unlocked).toEqual({ trips: 3, status: 'downloaded' });
    expect((await other.outputs('a'))[0]).toMatchObject({ path: fileOf('a', 0).path, sha256: fileOf('a', 0).sha256 });
  });

  test('before a download, a path no recorded file can be at is answered without a round trip; one that is, from the database', async () => {
    const linksOf = (key: string) => ({ urls: [`https://cdn.example/${key}.mp4`], places: [0] });
    // Recorded before the first question (the database's paths, read once) and by this store after.
    await bring(other, 'b', 'done');
    await other.write({ key: 'b', outputs: linksOf('b') });
    await other.recordDownload('b', 0, fileOf('b', 0));
    expect(await store.outputsAtPath('shorts/nothing-here.mp4')).toEqual([]);
    await bring(store, 'a', 'done');
    await store.write({ key: 'a', outputs: linksOf('a') });
    await store.recordDownload('a', 0, fileOf('a', 0));
    expect(await store.outputsAtPath(fileOf('b', 0).path)).toEqual([{ jobKey: 'b', idx: 0 }]);
    expect(await store.outputsAtPath(fileOf('a', 0).path)).toEqual([{ jobKey: 'a', idx: 0 }]);
    const before = store.roundTrips;
    for (let i = 0; i < 50; i++) expect(await store.outputsAtPath(`shorts/fresh-${i}.mp4`)).toEqual([]);
    expect(store.roundTrips - before).toBe(0);
  });

  test('a job forgotten is not answered from what was held', async () => {
    await bring(store, 'a', 'failed');
    await store.forget('a', { by: 'test' });
    expect(await store.job('a')).toBeUndefined();
  });

  test("the manifest's money, read again with nothing written since, costs no round trip; after a write, one", async () => {
    await bring(store, 'a', 'done');
    const places = ['a', 'b', 'c'].map((key) => ({ key, step: 'shorts', outputName: key }));
    const read = async () => {
      const before = store.roundTrips;
      const money = await store.money(places);
      return { money, trips: store.roundTrips - before };
    };
    const first = await read();
    await store.claim(10);
    expect(await read()).toEqual({ ...first, trips: 0 });
    await bring(store, 'b', 'done', { creditsUsed: 2 });
    const after = await read();
    expect(after.trips).toBe(1);
    expect(after.money).toEqual(await other.money(places));
  });

  test('once the lock is lost, the rows another holder wrote are read from the database', async () => {
    await bring(store, 'a', 'submitted');
    await other.forceUnlock(MANIFEST, LOCK.token, { by: 'test' });
    await other.takeLock({ ...LOCK, token: 'token-b', host: 'host-b' });
    await other.write({ key: 'a', move: { to: 'running', change: { remoteStatus: 'running' }, type: 'job:status' } });
    expect(await store.beatLock(MANIFEST, LOCK.token)).toBe(false);
    const held = await expectAnswer('a', 1);
    expect(held?.status).toBe('running');
  });
});

test('without the run lock every read goes to the database', async () => {
  await bring(store, 'a', 'submitted');
  await expectAnswer('a', 1);
});

test('without the run lock, every path is asked of the database', async () => {
  const before = store.roundTrips;
  expect(await store.outputsAtPath('shorts/fresh.mp4')).toEqual([]);
  expect(store.roundTrips - before).toBe(1);
});

test('after the lock is released, reads go to the database', async () => {
  await store.takeLock(LOCK);
  await bring(store, 'a', 'submitted');
  await store.releaseLock(MANIFEST, LOCK.token);
  expect((await readBoth('a')).trips).toBe(1);
});
