import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { migrate, MIGRATIONS, openStore, stateAt } from '../../src/state/index.js';
import { ManualClock } from '../../src/util/clock.js';

/** What the SQLite store adds to the conformance suite's adoptIdentity: what it leaves unwritten, and its own tables. */
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'reelpipe-adopt-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const none = async () => undefined;
const versionOf = (path: string) => {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare('SELECT max(version) FROM schema_version').pluck().get() as number;
  } finally {
    db.close();
  }
};

/** A state an older reelpipe (schema 18) left, with one job and one run of `/p/x.yaml`. */
function olderState(path: string): void {
  const db = new Database(path);
  migrate(db, MIGRATIONS.filter((m) => m.version <= 18));
  db.prepare(`INSERT INTO runs (manifest, host, pid, started_at) VALUES ('/p/x.yaml', 'h', 1, 0)`).run();
  db.prepare(`INSERT INTO jobs (key, manifest, step, kind, request, status, created_at, updated_at) VALUES ('k', '/p/x.yaml', 's', 'ai_short', '{}', 'submitted', 0, 0)`).run();
  db.prepare(`INSERT INTO attempts (manifest, job_key, state, request, intent_at, remote_id) VALUES ('/p/x.yaml', 'k', 'answered', '{}', 0, 'r-1')`).run();
  db.prepare(`INSERT INTO events (at, manifest, job_key, type) VALUES (0, '/p/x.yaml', 'k', 'job:intent')`).run();
  db.close();
}

describe('adoptIdentity on SQLite', () => {
  test('a state that does not exist is not created', async () => {
    const path = join(dir, 'state', 'reelpipe.db');
    expect(await stateAt(path).adoptIdentity('x', '/p/x.yaml', none, new ManualClock())).toEqual({ adopted: null });
    expect(existsSync(join(dir, 'state'))).toBe(false);
  });

  test("an older state with nothing of the manifest's path is neither written nor migrated", async () => {
    const path = join(dir, 'old.db');
    olderState(path);
    expect(await stateAt(path).adoptIdentity('y', '/p/y.yaml', none, new ManualClock())).toEqual({ adopted: null });
    expect(versionOf(path)).toBe(18);
  });

  test('an older state with rows of the path is migrated, and every row re-keyed, events too, in one go', async () => {
    const path = join(dir, 'old.db');
    olderState(path);
    expect(await stateAt(path).adoptIdentity('x', '/p/x.yaml', none, new ManualClock())).toEqual({ adopted: { path: '/p/x.yaml', jobs: 1, runs: 1 } });
    const db = new Database(path, { readonly: true });
    try {
      for (const table of ['jobs', 'attempts', 'events', 'runs']) {
        expect(db.prepare(`SELECT DISTINCT manifest FROM ${table}`).pluck().all(), table).toEqual(['x']);
      }
      expect(db.prepare('SELECT manifest_path FROM runs').pluck().all()).toEqual(['/p/x.yaml']);
      expect(db.prepare("SELECT data FROM events WHERE type = 'manifest:adopted'").pluck().all()).toEqual([JSON.stringify({ from: '/p/x.yaml', jobs: 1, runs: 1, lock: null })]);
      expect(db.pragma('foreign_key_check')).toEqual([]);
    } finally {
      db.close();
    }
    const store = (await openStore(path)).useManifest('x');
    expect((await store.lastAttempt('k'))?.remoteId).toBe('r-1');
    await store.close();
  });
});
