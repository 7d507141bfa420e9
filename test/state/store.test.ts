import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import {
  JOB_STATUSES,
  MIGRATIONS,
  SCHEMA_VERSION,
  canTransition,
  migrate,
  readEvents,
  scrubSecrets,
  type JobStatus,
  type Store,
} from '../../src/state/index.js';
import { StateStore } from '../../src/state/sqlite/job-store.js';
import { SqliteStore } from '../../src/state/sqlite/sqlite-store.js';
import { ManualClock } from '../../src/util/clock.js';

let dir: string;
/** The SQLite engine under the store: for what the Store does not expose (its connection, schema, engine-only reads). */
let engine: StateStore;
/** The store, through its door: every operation the Store has goes through it. */
let store: Store;
const clock = new ManualClock();

/** The Store over an engine of the file at `path`, that engine kept for a look at its internals. */
function openBoth(path: string): { engine: StateStore; store: Store } {
  const opened = StateStore.open(path, clock);
  return { engine: opened, store: new SqliteStore(opened) };
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'reelpipe-state-'));
  ({ engine, store } = openBoth(join(dir, 'state', 'reelpipe.db')));
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A job's places, one per link in order. */
const links = (urls: string[]) => ({ urls, places: urls.map((_, i) => i) });

const job = (key: string, step = 'shorts', outputName = key) => ({
  key,
  step,
  kind: 'ai_short' as const,
  outputName,
  request: { script: `script ${key}`, style: '3D', aspect_ratio: '9x16' },
  creditsEstimated: 5,
});

describe('migrations', () => {
  test('a new database is created in WAL mode at the newest schema version', () => {
    expect(engine.db.pragma('journal_mode', { simple: true })).toBe('wal');
    const versions = engine.db.prepare('SELECT version FROM schema_version').pluck().all();
    expect(versions).toEqual(MIGRATIONS.map((m) => m.version));
  });

  test('migrating twice applies nothing the second time', () => {
    expect(migrate(engine.db)).toEqual([]);
  });

  test('a database newer than this build is refused, not guessed at', () => {
    engine.db.prepare('INSERT INTO schema_version VALUES (?, ?, ?)').run(SCHEMA_VERSION + 1, 'future', 0);
    expect(() => migrate(engine.db)).toThrow(/written by a newer reelpipe/);
  });

  test('a later migration runs on an existing database and keeps its rows', async () => {
    await store.syncPlan('m.yaml', [job('a')]);
    const next = [...MIGRATIONS, { version: SCHEMA_VERSION + 1, name: 'add note', sql: 'ALTER TABLE jobs ADD COLUMN note TEXT' }];
    expect(migrate(engine.db, next)).toEqual([SCHEMA_VERSION + 1]);
    expect((await store.job('a'))?.status).toBe('planned');
  });
});

describe('the job status machine', () => {
  const allowed: [JobStatus, JobStatus][] = [
    ['planned', 'submitting'],
    ['submitting', 'submitted'],
    ['submitting', 'in_doubt'],
    ['submitting', 'rejected'],
    ['in_doubt', 'submitted'],
    ['in_doubt', 'planned'],
    ['in_doubt', 'failed'],
    ['in_doubt', 'rejected'],
    ['submitted', 'running'],
    ['running', 'done'],
    ['running', 'failed'],
    ['done', 'downloaded'],
    ['failed', 'planned'],
  ];
  const refused: [JobStatus, JobStatus][] = [
    ['planned', 'submitted'],
    ['planned', 'downloaded'],
    ['submitted', 'planned'],
    ['running', 'submitting'],
    ['downloaded', 'planned'],
    ['in_doubt', 'downloaded'],
    ['failed', 'done'],
  ];
  test.each(allowed)('%s → %s is allowed', (from, to) => expect(canTransition(from, to)).toBe(true));
  test.each(refused)('%s → %s is refused', (from, to) => expect(canTransition(from, to)).toBe(false));

  test('every status can be reached from planned', () => {
    const seen = new Set<JobStatus>(['planned']);
    for (let round = 0; round < JOB_STATUSES.length; round++) {
      for (const from of [...seen]) for (const to of JOB_STATUSES) if (canTransition(from, to)) seen.add(to);
    }
    expect([...seen].sort()).toEqual([...JOB_STATUSES].sort());
  });

  test('an illegal move through the store throws and changes nothing', async () => {
    await store.syncPlan('m.yaml', [job('a')]);
    await expect(store.write({ key: 'a', move: { to: 'downloaded', type: 'job:downloaded' } })).rejects.toThrow(/illegal status change planned → downloaded/);
    expect((await store.job('a'))?.status).toBe('planned');
  });
});

describe('jobs', () => {
  test('syncing a plan adds new keys and leaves finished jobs alone', async () => {
    await store.syncPlan('m.yaml', [job('a'), job('b')]);
    await store.write({ key: 'a', move: { to: 'submitting', type: 'job:intent' } });
    await store.write({ key: 'a', move: { to: 'submitted', change: { remoteId: 'r-a' }, type: 'job:answered' } });
    const again = await store.syncPlan('m.yaml', [job('a'), job('b'), job('c')]);
    expect(again).toEqual({ added: 1, known: 2 });
    expect(await store.job('a')).toMatchObject({ status: 'submitted', remoteId: 'r-a' });
    expect((await store.job('c'))?.status).toBe('planned');
  });

  test('a transition sets its columns and appends one event in the same transaction', async () => {
    await store.syncPlan('m.yaml', [job('a')]);
    await store.write({ key: 'a', move: { to: 'submitting', change: { creditsReserved: 5 }, type: 'job:intent' } });
    const { row } = await store.write({ key: 'a', move: { to: 'submitted', change: { remoteId: 'r-1', result: { id: 'r-1', status: 'pending' } }, type: 'job:answered' } });
    expect(row).toMatchObject({ status: 'submitted', remoteId: 'r-1', creditsReserved: 5 });
    expect((await store.job('a'))?.result).toEqual({ id: 'r-1', status: 'pending' });
    expect(readEvents(engine.db, { jobKey: 'a' }).map((e) => [e.type, e.data?.to])).toEqual([
      ['job:intent', 'submitting'],
      ['job:answered', 'submitted'],
    ]);
  });

  test("a job's last read is kept beside its row: every way of reading the job has it, and a retry clears it", async () => {
    await store.syncPlan('m.yaml', [job('a'), job('b')]);
    await store.write({ key: 'a', move: { to: 'submitting', type: 'job:intent' } });
    await store.write({ key: 'a', move: { to: 'submitted', change: { remoteId: 'r-1', result: { id: 'r-1', status: 'pending' } }, type: 'job:answered' } });
    expect((await store.write({ key: 'a', move: { to: 'running', type: 'job:status' } })).row.result).toEqual({ id: 'r-1', status: 'pending' });
    const read = { id: 'r-1', status: 'failed' };
    expect((await store.write({ key: 'a', move: { to: 'failed', change: { result: read }, type: 'job:status' } })).row.result).toEqual(read);
    // jobByRemoteId is the engine's own read (the Store has none that answers a row by remote id).
    expect([(await store.job('a'))?.result, engine.jobByRemoteId('ai_short', 'r-1')?.result, (await store.jobsWithStatus(['failed']))[0]?.result]).toEqual([read, read, read]);
    expect((await store.jobs(Array.from({ length: 40 }, (_, i) => (i === 0 ? 'a' : `none-${i}`))))[0]?.result).toEqual(read);
    expect(engine.db.prepare('SELECT count(*) FROM job_results').pluck().get()).toBe(1);
    expect((await store.planAgain(['a'], ['failed']))[0]?.result).toBeNull();
    expect([(await store.job('a'))?.result, (await store.job('b'))?.result]).toEqual([null, null]);
    expect(engine.db.prepare('SELECT count(*) FROM job_results').pluck().get()).toBe(0);
  });

  test('one remote job can belong to only one row of its kind', async () => {
    await store.syncPlan('m.yaml', [job('a'), job('b')]);
    for (const key of ['a', 'b']) await store.write({ key, move: { to: 'submitting', type: 'job:intent' } });
    await store.write({ key: 'a', move: { to: 'submitted', change: { remoteId: 'same' }, type: 'job:answered' } });
    await expect(store.write({ key: 'b', move: { to: 'submitted', change: { remoteId: 'same' }, type: 'job:answered' } })).rejects.toThrow(/UNIQUE/);
    expect((await store.remoteIdOwner('same'))?.key).toBe('a');
  });

  test('attempts record the intent, then how it ended', async () => {
    await store.syncPlan('m.yaml', [job('a')]);
    const id = await store.recordIntent({ key: 'a', request: { script: 'x' }, hookToken: null, pathId: null, creditsReserved: 0 });
    expect(await store.lastAttempt('a')).toMatchObject({ id, state: 'intent', request: { script: 'x' } });
    await store.write({ key: 'a', attempt: { id, state: 'answered', remoteId: 'r-1' } });
    expect(await store.lastAttempt('a')).toMatchObject({ state: 'answered', remoteId: 'r-1' });
    expect((await store.job('a'))?.attemptCount).toBe(1);
  });

  test('an output keeps its download record while its URL is unchanged; a changed URL forgets it; a dropped one goes', async () => {
    await store.syncPlan('m.yaml', [job('a')]);
    await store.write({ key: 'a', outputs: links(['http://x/1.mp4', 'http://x/2.mp4', 'http://x/3.mp4']) });
    await store.recordDownload('a', 0, { path: 'out/a-1.mp4', bytes: 10, sha256: 'abc', contentType: 'video/mp4', statStamp: '10:1767225600000000001:1767225600000000001' });
    await store.recordDownload('a', 1, { path: 'out/a-2.mp4', bytes: 20, sha256: 'def', contentType: 'video/mp4', statStamp: '20:1767225600000000002:1767225600000000002' });
    await store.write({ key: 'a', outputs: links(['http://x/1.mp4', 'http://x/2-fresh.mp4']) });
    expect(await store.outputs('a')).toEqual([
      expect.objectContaining({ idx: 0, url: 'http://x/1.mp4', sha256: 'abc', path: 'out/a-1.mp4', bytes: 10, statStamp: '10:1767225600000000001:1767225600000000001' }),
      expect.objectContaining({ idx: 1, url: 'http://x/2-fresh.mp4', sha256: null, path: null, bytes: null, downloadedAt: null, statStamp: null }),
    ]);
  });

  test('a link re-signed (same file, another query) keeps the record: re-reading a job must not forget files already fetched', async () => {
    await store.syncPlan('m.yaml', [job('a')]);
    await store.write({ key: 'a', outputs: links(['https://cdn.example.com/o/1.html?sig=aaa&exp=1', 'https://cdn.example.com/o/2.html?sig=bbb&exp=1']) });
    await store.recordDownload('a', 0, { path: 'out/a-1.html', bytes: 10, sha256: 'abc', contentType: 'text/html', statStamp: '10:1:1' });
    await store.write({ key: 'a', outputs: links(['https://cdn.example.com/o/1.html?sig=ccc&exp=2', 'https://cdn.example.com/o/2.html?sig=ddd&exp=2']) });
    expect((await store.outputs('a'))[0]).toMatchObject({ url: 'https://cdn.example.com/o/1.html?sig=ccc&exp=2', sha256: 'abc', path: 'out/a-1.html' });
    await store.write({ key: 'a', outputs: links(['https://other.example.com/o/1.html?sig=ccc', 'https://cdn.example.com/o/2.html']) });
    expect((await store.outputs('a'))[0]).toMatchObject({ sha256: null, path: null });
  });

  test('an output verified in full keeps the stat stamp it was verified at, its times to the nanosecond', async () => {
    await store.syncPlan('m.yaml', [job('a')]);
    await store.write({ key: 'a', outputs: links(['http://x/1.mp4']) });
    await store.recordDownload('a', 0, { path: 'out/a-1.mp4', bytes: 10, sha256: 'abc', contentType: 'video/mp4', statStamp: '10:1767225600123456789:1767225600123456789' });
    await store.recordVerified('a', 0, '10:1767225600123456789:1767225999987654321');
    expect((await store.outputs('a'))[0]).toMatchObject({ sha256: 'abc', statStamp: '10:1767225600123456789:1767225999987654321' });
  });
});

describe('retry keeps what a failed attempt was counted as costing', () => {
  /** A job that ended `end` with `creditsUsed` reported (null: none), having reserved 50. */
  async function ended(end: 'failed' | 'rejected', creditsUsed: number | null): Promise<void> {
    await store.syncPlan('m.yaml', [job('a')]);
    await store.recordIntent({ key: 'a', request: { script: 'a' }, hookToken: null, pathId: null, creditsReserved: 50 });
    if (end === 'failed') {
      await store.write({ key: 'a', move: { to: 'submitted', change: { remoteId: 'r-1' }, type: 'job:answered' } });
      // As the tracker records it: with no reported cost the reservation stays as the cost.
      await store.write({ key: 'a', move: { to: 'failed', change: { creditsUsed, ...(creditsUsed === null ? {} : { creditsReserved: 0 }) }, type: 'job:failed' } });
    } else {
      await store.write({ key: 'a', move: { to: 'rejected', change: { creditsUsed, creditsReserved: 0 }, type: 'job:rejected' } });
    }
  }

  test.each([
    ['failed with its cost reported: credits_prior 12', 'failed', 12, 12],
    ['failed with no cost reported: credits_prior is its reservation, 50', 'failed', null, 50],
    ['rejected, nothing was created: credits_prior 0', 'rejected', 0, 0],
  ] as const)('%s', async (_, end, creditsUsed, prior) => {
    await ended(end, creditsUsed);
    const before = (await store.money([job('a')])).totals.counted;
    await store.planAgain(['a'], [end]);
    const after = (await store.money([job('a')])).totals.counted;
    expect(await store.job('a')).toMatchObject({ status: 'planned', creditsPrior: prior, creditsReserved: 0, creditsUsed: null });
    expect(after).toBe(before);
    expect(after).toBe(prior);
  });
});

describe('jobs belong to their manifest', () => {
  test('two manifests with an identical job each own their row: statuses, attempts and outputs never mix', async () => {
    await store.syncPlan('/p/a.yaml', [job('same')]);
    await store.recordIntent({ key: 'same', request: { script: 'a' }, hookToken: null, pathId: null, creditsReserved: 0 });
    await store.write({ key: 'same', outputs: links(['http://x/a.mp4']) });
    await store.syncPlan('/p/b.yaml', [job('same')]);
    expect(await store.job('same')).toMatchObject({ manifest: '/p/b.yaml', status: 'planned', attemptCount: 0 });
    expect(await store.attempts('same')).toEqual([]);
    expect(await store.outputs('same')).toEqual([]);
    expect(await store.jobsWithStatus(['submitting'])).toEqual([]);
    store.useManifest('/p/a.yaml');
    expect(await store.job('same')).toMatchObject({ manifest: '/p/a.yaml', status: 'submitting', attemptCount: 1 });
    expect(await store.outputs('same')).toHaveLength(1);
  });

  test('a store that has chosen no manifest refuses to guess', async () => {
    await expect(store.job('a')).rejects.toThrow(/no manifest chosen/);
  });

  /** A version-12 file (before job_results) holding 300 finished jobs with their reads, and one planned. */
  const version12 = () => {
    const path = join(dir, 'v12.db');
    const old = new Database(path);
    migrate(old, MIGRATIONS.filter((m) => m.version <= 12));
    const insert = old.prepare(`INSERT INTO jobs (key, manifest, step, kind, request, status, result, created_at, updated_at) VALUES (?, '/p/a.yaml', 's', 'ai_short', '{}', ?, ?, 0, 0)`);
    for (let i = 0; i < 300; i++) insert.run(`read-${i}`, 'done', JSON.stringify(lastRead(i)));
    insert.run('unread', 'planned', null);
    return { path, old };
  };
  const lastRead = (i: number) => ({ id: `r-${i}`, video_output: `http://x/${i}.mp4`, script: 'x'.repeat(1000) });
  const pages = (db: Database.Database, name: string) => db.prepare('SELECT count(*) FROM dbstat WHERE name = ?').pluck().get(name) as number;

  test("opening a version-12 database moves each job's last read out of its row, reads it back the same, and compacts the file", async () => {
    const { path, old } = version12();
    old.close();
    const { engine: opened, store: migrated } = openBoth(path);
    migrated.useManifest('/p/a.yaml');
    try {
      expect((await migrated.job('read-7'))?.result).toEqual(lastRead(7));
      expect((await migrated.job('unread'))?.result).toBeNull();
      expect(opened.db.prepare('SELECT count(*) FROM jobs WHERE result IS NOT NULL').pluck().get()).toBe(0);
      expect(opened.db.pragma('foreign_key_check')).toEqual([]);
      // Compacted: the jobs table's pages hold its small columns only, no longer the reads' room.
      expect(pages(opened.db, 'jobs') * 5).toBeLessThan(pages(opened.db, 'job_results'));
    } finally {
      await migrated.close();
    }
  });

  test('a reelpipe from before job_results, still running on the file, keeps working: its reads are read back, and a new one replaces them', async () => {
    const { path, old } = version12();
    const { store: migrated } = openBoth(path);
    migrated.useManifest('/p/a.yaml');
    try {
      // The older process writes the column it knows, after the migration.
      old.prepare(`UPDATE jobs SET status = 'submitted', result = '{"id":"r-old"}' WHERE key = 'unread'`).run();
      expect((await migrated.job('unread'))?.result).toEqual({ id: 'r-old' });
      const failed = await migrated.write({ key: 'unread', move: { to: 'failed', change: { result: { id: 'r-old', status: 'failed' } }, type: 'job:status' } });
      expect(failed.row.result).toEqual({ id: 'r-old', status: 'failed' });
      expect(old.prepare(`SELECT result FROM jobs WHERE key = 'unread'`).pluck().get()).toBeNull();
      old.prepare(`UPDATE jobs SET result = '{"id":"r-older"}' WHERE key = 'unread'`).run();
      expect((await migrated.planAgain(['unread'], ['failed']))[0]?.result).toBeNull();
    } finally {
      await migrated.close();
      old.close();
    }
  });

  test('the file is not compacted while another process holds a lock on it (its commits would wait on the rewrite)', async () => {
    const { path, old } = version12();
    old.prepare(`INSERT INTO locks (name, host, pid, acquired_at, heartbeat_at) VALUES ('/p/b.yaml', 'h', 1, 0, 0)`).run();
    old.close();
    const { engine: opened, store: migrated } = openBoth(path);
    migrated.useManifest('/p/a.yaml');
    try {
      expect((await migrated.job('read-7'))?.result).toEqual(lastRead(7));
      expect(pages(opened.db, 'jobs') * 5).toBeGreaterThan(pages(opened.db, 'job_results'));
    } finally {
      await migrated.close();
    }
  });

  test('migrating a version-3 database keeps every row, each with the manifest that recorded it', async () => {
    const old = new Database(join(dir, 'v3.db'));
    migrate(old, MIGRATIONS.filter((m) => m.version <= 3));
    old.prepare(`INSERT INTO jobs (key, manifest, step, kind, request, status, created_at, updated_at) VALUES ('k', '/p/a.yaml', 's', 'ai_short', '{}', 'submitted', 0, 0)`).run();
    old.prepare(`INSERT INTO attempts (job_key, state, request, intent_at, remote_id) VALUES ('k', 'answered', '{}', 0, 'r-1')`).run();
    old.prepare(`INSERT INTO outputs (job_key, idx, url) VALUES ('k', 0, 'http://x/k.mp4')`).run();
    old.prepare(`INSERT INTO events (at, job_key, type) VALUES (0, 'k', 'job:intent')`).run();
    expect(migrate(old)).toEqual(MIGRATIONS.filter((m) => m.version > 3).map((m) => m.version));
    const migrated = new SqliteStore(new StateStore(old)).useManifest('/p/a.yaml');
    expect((await migrated.job('k'))?.status).toBe('submitted');
    expect((await migrated.lastAttempt('k'))?.remoteId).toBe('r-1');
    expect(await migrated.outputs('k')).toHaveLength(1);
    expect(old.prepare('SELECT manifest FROM events').pluck().get()).toBe('/p/a.yaml');
    expect(old.pragma('foreign_key_check')).toEqual([]);
    await migrated.close();
  });
});

describe('the event log', () => {
  test('never stores credentials, however they are passed', async () => {
    await store.note('job:answered', null, { headers: { 'X-API-KEY': 'k-123', 'x-api-id': 'i-456' }, apiKey: 'k', body: { ok: 1 } });
    const raw = engine.db.prepare('SELECT data FROM events').pluck().all().join('\n');
    expect(raw).not.toMatch(/k-123|i-456/);
    expect(scrubSecrets({ nested: [{ authorization: 'Bearer x' }] })).toEqual({ nested: [{ authorization: '[redacted]' }] });
  });

  test('is append-only in use: each run start and finish is an event', async () => {
    await store.useManifest('m.yaml').startRun('host', 1, null);
    await store.finishRun('done', { jobs: 0 });
    expect(readEvents(engine.db).map((e) => e.type)).toEqual(['run:started', 'run:finished']);
  });
});
