import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import {
  JOB_STATUSES,
  MIGRATIONS,
  SCHEMA_VERSION,
  StateStore,
  canTransition,
  migrate,
  readEvents,
  scrubSecrets,
  type JobStatus,
} from '../../src/state/index.js';
import { ManualClock } from '../../src/util/clock.js';

let dir: string;
let store: StateStore;
const clock = new ManualClock();

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'reelpipe-state-'));
  store = StateStore.open(join(dir, 'state', 'reelpipe.db'), clock);
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

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
    expect(store.db.pragma('journal_mode', { simple: true })).toBe('wal');
    const versions = store.db.prepare('SELECT version FROM schema_version').pluck().all();
    expect(versions).toEqual(MIGRATIONS.map((m) => m.version));
  });

  test('migrating twice applies nothing the second time', () => {
    expect(migrate(store.db)).toEqual([]);
  });

  test('a database newer than this build is refused, not guessed at', () => {
    store.db.prepare('INSERT INTO schema_version VALUES (?, ?, ?)').run(SCHEMA_VERSION + 1, 'future', 0);
    expect(() => migrate(store.db)).toThrow(/written by a newer reelpipe/);
  });

  test('a later migration runs on an existing database and keeps its rows', () => {
    store.syncPlan('m.yaml', [job('a')]);
    const next = [...MIGRATIONS, { version: SCHEMA_VERSION + 1, name: 'add note', sql: 'ALTER TABLE jobs ADD COLUMN note TEXT' }];
    expect(migrate(store.db, next)).toEqual([SCHEMA_VERSION + 1]);
    expect(store.job('a')?.status).toBe('planned');
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

  test('an illegal move through the store throws and changes nothing', () => {
    store.syncPlan('m.yaml', [job('a')]);
    expect(() => store.transition('a', 'downloaded', {}, 'job:downloaded')).toThrow(/illegal status change planned → downloaded/);
    expect(store.job('a')?.status).toBe('planned');
  });
});

describe('jobs', () => {
  test('syncing a plan adds new keys and leaves finished jobs alone', () => {
    store.syncPlan('m.yaml', [job('a'), job('b')]);
    store.transition('a', 'submitting', {}, 'job:intent');
    store.transition('a', 'submitted', { remoteId: 'r-a' }, 'job:answered');
    const again = store.syncPlan('m.yaml', [job('a'), job('b'), job('c')]);
    expect(again).toEqual({ added: 1, known: 2 });
    expect(store.job('a')).toMatchObject({ status: 'submitted', remoteId: 'r-a' });
    expect(store.job('c')?.status).toBe('planned');
  });

  test('a transition sets its columns and appends one event in the same transaction', () => {
    store.syncPlan('m.yaml', [job('a')]);
    store.transition('a', 'submitting', { creditsReserved: 5 }, 'job:intent');
    const row = store.transition('a', 'submitted', { remoteId: 'r-1', result: { id: 'r-1', status: 'pending' } }, 'job:answered');
    expect(row).toMatchObject({ status: 'submitted', remoteId: 'r-1', creditsReserved: 5 });
    expect(store.job('a')?.result).toEqual({ id: 'r-1', status: 'pending' });
    expect(readEvents(store.db, { jobKey: 'a' }).map((e) => [e.type, e.data?.to])).toEqual([
      ['job:intent', 'submitting'],
      ['job:answered', 'submitted'],
    ]);
  });

  test("a job's last read is kept beside its row: every way of reading the job has it, and a retry clears it", () => {
    store.syncPlan('m.yaml', [job('a'), job('b')]);
    store.transition('a', 'submitting', {}, 'job:intent');
    store.transition('a', 'submitted', { remoteId: 'r-1', result: { id: 'r-1', status: 'pending' } }, 'job:answered');
    expect(store.transition('a', 'running', {}, 'job:status').result).toEqual({ id: 'r-1', status: 'pending' });
    const read = { id: 'r-1', status: 'failed' };
    expect(store.transition('a', 'failed', { result: read }, 'job:status').result).toEqual(read);
    expect([store.job('a')?.result, store.jobByRemoteId('ai_short', 'r-1')?.result, store.jobsWithStatus(['failed'])[0]?.result]).toEqual([read, read, read]);
    expect(store.jobs(Array.from({ length: 40 }, (_, i) => (i === 0 ? 'a' : `none-${i}`)))[0]?.result).toEqual(read);
    expect(store.db.prepare('SELECT count(*) FROM job_results').pluck().get()).toBe(1);
    expect(store.planAgain('a').result).toBeNull();
    expect([store.job('a')?.result, store.job('b')?.result]).toEqual([null, null]);
    expect(store.db.prepare('SELECT count(*) FROM job_results').pluck().get()).toBe(0);
  });

  test('one remote job can belong to only one row of its kind', () => {
    store.syncPlan('m.yaml', [job('a'), job('b')]);
    for (const key of ['a', 'b']) store.transition(key, 'submitting', {}, 'job:intent');
    store.transition('a', 'submitted', { remoteId: 'same' }, 'job:answered');
    expect(() => store.transition('b', 'submitted', { remoteId: 'same' }, 'job:answered')).toThrow(/UNIQUE/);
    expect(store.jobByRemoteId('ai_short', 'same')?.key).toBe('a');
  });

  test('attempts record the intent, then how it ended', () => {
    store.syncPlan('m.yaml', [job('a')]);
    const id = store.durably(() => store.insertAttempt('a', { script: 'x' }));
    expect(store.lastAttempt('a')).toMatchObject({ id, state: 'intent', request: { script: 'x' } });
    store.closeAttempt(id, 'answered', { remoteId: 'r-1' });
    expect(store.lastAttempt('a')).toMatchObject({ state: 'answered', remoteId: 'r-1' });
    expect(store.job('a')?.attemptCount).toBe(1);
  });

  test('an output keeps its download record while its URL is unchanged; a changed URL forgets it; a dropped one goes', () => {
    store.syncPlan('m.yaml', [job('a')]);
    store.setOutputs('a', ['http://x/1.mp4', 'http://x/2.mp4', 'http://x/3.mp4']);
    store.recordDownload('a', 0, { path: 'out/a-1.mp4', bytes: 10, sha256: 'abc', contentType: 'video/mp4', statStamp: '10:1767225600000000001:1767225600000000001' });
    store.recordDownload('a', 1, { path: 'out/a-2.mp4', bytes: 20, sha256: 'def', contentType: 'video/mp4', statStamp: '20:1767225600000000002:1767225600000000002' });
    store.setOutputs('a', ['http://x/1.mp4', 'http://x/2-fresh.mp4']);
    expect(store.outputs('a')).toEqual([
      expect.objectContaining({ idx: 0, url: 'http://x/1.mp4', sha256: 'abc', path: 'out/a-1.mp4', bytes: 10, statStamp: '10:1767225600000000001:1767225600000000001' }),
      expect.objectContaining({ idx: 1, url: 'http://x/2-fresh.mp4', sha256: null, path: null, bytes: null, downloadedAt: null, statStamp: null }),
    ]);
  });

  test('a link re-signed (same file, another query) keeps the record: re-reading a job must not forget files already fetched', () => {
    store.syncPlan('m.yaml', [job('a')]);
    store.setOutputs('a', ['https://cdn.example.com/o/1.html?sig=aaa&exp=1', 'https://cdn.example.com/o/2.html?sig=bbb&exp=1']);
    store.recordDownload('a', 0, { path: 'out/a-1.html', bytes: 10, sha256: 'abc', contentType: 'text/html', statStamp: '10:1:1' });
    store.setOutputs('a', ['https://cdn.example.com/o/1.html?sig=ccc&exp=2', 'https://cdn.example.com/o/2.html?sig=ddd&exp=2']);
    expect(store.outputs('a')[0]).toMatchObject({ url: 'https://cdn.example.com/o/1.html?sig=ccc&exp=2', sha256: 'abc', path: 'out/a-1.html' });
    store.setOutputs('a', ['https://other.example.com/o/1.html?sig=ccc', 'https://cdn.example.com/o/2.html']);
    expect(store.outputs('a')[0]).toMatchObject({ sha256: null, path: null });
  });

  test('an output verified in full keeps the stat stamp it was verified at, its times to the nanosecond', () => {
    store.syncPlan('m.yaml', [job('a')]);
    store.setOutputs('a', ['http://x/1.mp4']);
    store.recordDownload('a', 0, { path: 'out/a-1.mp4', bytes: 10, sha256: 'abc', contentType: 'video/mp4', statStamp: '10:1767225600123456789:1767225600123456789' });
    store.recordVerified('a', 0, '10:1767225600123456789:1767225999987654321');
    expect(store.outputs('a')[0]).toMatchObject({ sha256: 'abc', statStamp: '10:1767225600123456789:1767225999987654321' });
  });
});

describe('retry keeps what a failed attempt was counted as costing', () => {
  /** A job that ended `end` with `creditsUsed` reported (null: none), having reserved 50. */
  function ended(end: 'failed' | 'rejected', creditsUsed: number | null): void {
    store.syncPlan('m.yaml', [job('a')]);
    store.insertAttempt('a', { script: 'a' });
    store.transition('a', 'submitting', { creditsReserved: 50 }, 'job:intent');
    if (end === 'failed') {
      store.transition('a', 'submitted', { remoteId: 'r-1' }, 'job:answered');
      // As the tracker records it: with no reported cost the reservation stays as the cost.
      store.transition('a', 'failed', { creditsUsed, ...(creditsUsed === null ? {} : { creditsReserved: 0 }) }, 'job:failed');
    } else {
      store.transition('a', 'rejected', { creditsUsed, creditsReserved: 0 }, 'job:rejected');
    }
  }

  test.each([
    ['failed with its cost reported: credits_prior 12', 'failed', 12, 12],
    ['failed with no cost reported: credits_prior is its reservation, 50', 'failed', null, 50],
    ['rejected, nothing was created: credits_prior 0', 'rejected', 0, 0],
  ] as const)('%s', (_, end, creditsUsed, prior) => {
    ended(end, creditsUsed);
    const before = store.money([job('a')]).totals.counted;
    store.planAgain('a');
    const after = store.money([job('a')]).totals.counted;
    expect(store.job('a')).toMatchObject({ status: 'planned', creditsPrior: prior, creditsReserved: 0, creditsUsed: null });
    expect(after).toBe(before);
    expect(after).toBe(prior);
  });
});

describe('jobs belong to their manifest', () => {
  test('two manifests with an identical job each own their row: statuses, attempts and outputs never mix', () => {
    store.syncPlan('/p/a.yaml', [job('same')]);
    store.transition('same', 'submitting', {}, 'job:intent');
    store.insertAttempt('same', { script: 'a' });
    store.setOutputs('same', ['http://x/a.mp4']);
    store.syncPlan('/p/b.yaml', [job('same')]);
    expect(store.job('same')).toMatchObject({ manifest: '/p/b.yaml', status: 'planned', attemptCount: 0 });
    expect(store.attempts('same')).toEqual([]);
    expect(store.outputs('same')).toEqual([]);
    expect(store.jobsWithStatus(['submitting'])).toEqual([]);
    store.useManifest('/p/a.yaml');
    expect(store.job('same')).toMatchObject({ manifest: '/p/a.yaml', status: 'submitting', attemptCount: 1 });
    expect(store.outputs('same')).toHaveLength(1);
  });

  test('a store that has chosen no manifest refuses to guess', () => {
    expect(() => store.job('a')).toThrow(/no manifest chosen/);
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

  test("opening a version-12 database moves each job's last read out of its row, reads it back the same, and compacts the file", () => {
    const { path, old } = version12();
    old.close();
    const migrated = StateStore.open(path, clock).useManifest('/p/a.yaml');
    try {
      expect(migrated.job('read-7')?.result).toEqual(lastRead(7));
      expect(migrated.job('unread')?.result).toBeNull();
      expect(migrated.db.prepare('SELECT count(*) FROM jobs WHERE result IS NOT NULL').pluck().get()).toBe(0);
      expect(migrated.db.pragma('foreign_key_check')).toEqual([]);
      // Compacted: the jobs table's pages hold its small columns only, no longer the reads' room.
      expect(pages(migrated.db, 'jobs') * 5).toBeLessThan(pages(migrated.db, 'job_results'));
    } finally {
      migrated.close();
    }
  });

  test('a reelpipe from before job_results, still running on the file, keeps working: its reads are read back, and a new one replaces them', () => {
    const { path, old } = version12();
    const migrated = StateStore.open(path, clock).useManifest('/p/a.yaml');
    try {
      // The older process writes the column it knows, after the migration.
      old.prepare(`UPDATE jobs SET status = 'submitted', result = '{"id":"r-old"}' WHERE key = 'unread'`).run();
      expect(migrated.job('unread')?.result).toEqual({ id: 'r-old' });
      expect(migrated.transition('unread', 'failed', { result: { id: 'r-old', status: 'failed' } }, 'job:status').result).toEqual({ id: 'r-old', status: 'failed' });
      expect(old.prepare(`SELECT result FROM jobs WHERE key = 'unread'`).pluck().get()).toBeNull();
      old.prepare(`UPDATE jobs SET result = '{"id":"r-older"}' WHERE key = 'unread'`).run();
      expect(migrated.planAgain('unread').result).toBeNull();
    } finally {
      migrated.close();
      old.close();
    }
  });

  test('the file is not compacted while another process holds a lock on it (its commits would wait on the rewrite)', () => {
    const { path, old } = version12();
    old.prepare(`INSERT INTO locks (name, host, pid, acquired_at, heartbeat_at) VALUES ('/p/b.yaml', 'h', 1, 0, 0)`).run();
    old.close();
    const migrated = StateStore.open(path, clock).useManifest('/p/a.yaml');
    try {
      expect(migrated.job('read-7')?.result).toEqual(lastRead(7));
      expect(pages(migrated.db, 'jobs') * 5).toBeGreaterThan(pages(migrated.db, 'job_results'));
    } finally {
      migrated.close();
    }
  });

  test('migrating a version-3 database keeps every row, each with the manifest that recorded it', () => {
    const old = new Database(join(dir, 'v3.db'));
    migrate(old, MIGRATIONS.filter((m) => m.version <= 3));
    old.prepare(`INSERT INTO jobs (key, manifest, step, kind, request, status, created_at, updated_at) VALUES ('k', '/p/a.yaml', 's', 'ai_short', '{}', 'submitted', 0, 0)`).run();
    old.prepare(`INSERT INTO attempts (job_key, state, request, intent_at, remote_id) VALUES ('k', 'answered', '{}', 0, 'r-1')`).run();
    old.prepare(`INSERT INTO outputs (job_key, idx, url) VALUES ('k', 0, 'http://x/k.mp4')`).run();
    old.prepare(`INSERT INTO events (at, job_key, type) VALUES (0, 'k', 'job:intent')`).run();
    expect(migrate(old)).toEqual(MIGRATIONS.filter((m) => m.version > 3).map((m) => m.version));
    const migrated = new StateStore(old).useManifest('/p/a.yaml');
    expect(migrated.job('k')?.status).toBe('submitted');
    expect(migrated.lastAttempt('k')?.remoteId).toBe('r-1');
    expect(migrated.outputs('k')).toHaveLength(1);
    expect(old.prepare('SELECT manifest FROM events').pluck().get()).toBe('/p/a.yaml');
    expect(old.pragma('foreign_key_check')).toEqual([]);
    old.close();
  });
});

describe('the event log', () => {
  test('never stores credentials, however they are passed', () => {
    store.event('job:answered', null, { headers: { 'X-API-KEY': 'k-123', 'x-api-id': 'i-456' }, apiKey: 'k', body: { ok: 1 } });
    const raw = store.db.prepare('SELECT data FROM events').pluck().all().join('\n');
    expect(raw).not.toMatch(/k-123|i-456/);
    expect(scrubSecrets({ nested: [{ authorization: 'Bearer x' }] })).toEqual({ nested: [{ authorization: '[redacted]' }] });
  });

  test('is append-only in use: each run start and finish is an event', () => {
    store.startRun('m.yaml', 'host', 1, null);
    store.finishRun('done', { jobs: 0 });
    expect(readEvents(store.db).map((e) => e.type)).toEqual(['run:started', 'run:finished']);
  });
});
