import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { StateBusyError } from '../../src/errors.js';
import { BUSY_TIMEOUT_MS } from '../../src/state/sqlite/busy.js';
import { StateStore } from '../../src/state/sqlite/job-store.js';
import { SqliteStore } from '../../src/state/sqlite/sqlite-store.js';
import { ManualClock } from '../../src/util/clock.js';

/**
 * A state database whose write lock another process holds (paused or hung mid-write) still opens
 * and answers reads: a database with nothing to migrate is only read when opened, so the command
 * meets the lock at its first write, where it is refused naming the file (test/e2e/paused-run.test.ts).
 */
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'reelpipe-held-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test('a database held mid-write by another connection opens at once and its runs can be read', () => {
  const path = join(dir, 'reelpipe.db');
  const first = StateStore.open(path, new ManualClock(1_000));
  first.useManifest('m');
  first.startRun('m', 'host-a', 1, null, null);
  first.close();
  const holder = new Database(path);
  holder.exec('BEGIN IMMEDIATE');
  try {
    // A migration taking the write lock here would wait out the busy timeout, then be refused.
    const second = StateStore.open(path, new ManualClock(2_000));
    expect(second.db.prepare('SELECT count(*) FROM runs').pluck().get()).toBe(1);
    second.close();
  } finally {
    holder.exec('ROLLBACK');
    holder.close();
  }
});

test('a write refused after the whole busy timeout leaves the connection waiting no more until a write gets through', async () => {
  const path = join(dir, 'reelpipe.db');
  const engine = StateStore.open(path, new ManualClock(1_000));
  const store = new SqliteStore(engine).useManifest('m');
  const holder = new Database(path);
  holder.exec('BEGIN IMMEDIATE');
  try {
    await expect(store.startRun('host-a', 1, null)).rejects.toThrow(StateBusyError);
    // The holder is stopped, not committing: the next write is refused without another ten seconds' wait…
    expect(engine.db.pragma('busy_timeout', { simple: true })).toBe(0);
    await expect(store.startRun('host-a', 1, null)).rejects.toThrow(/is held by another process/);
  } finally {
    holder.exec('ROLLBACK');
    holder.close();
  }
  // …and once the holder has let go, a write gets through and the wait is as before.
  await store.startRun('host-a', 1, null);
  expect(engine.db.pragma('busy_timeout', { simple: true })).toBe(BUSY_TIMEOUT_MS);
  expect(engine.db.prepare('SELECT count(*) FROM runs').pluck().get()).toBe(1);
  await store.close();
});
