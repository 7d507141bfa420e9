import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { acquireLock, forceUnlock, openStore, readEvents, readLockHolder, type Store } from '../../src/state/index.js';
import { ManualClock } from '../../src/util/clock.js';
import { peek } from './peek.js';

let dir: string;
let runner: Store;
let operator: Store;
/** The file as committed, read apart from both stores. */
let db: Database.Database;
let clock: ManualClock;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'reelpipe-lock-holder-'));
  clock = new ManualClock();
  runner = await openStore(join(dir, 'r.db'), clock);
  operator = await openStore(join(dir, 'r.db'), clock);
  db = peek(join(dir, 'r.db'));
});
afterEach(async () => {
  db.close();
  await runner.close();
  await operator.close();
  rmSync(dir, { recursive: true, force: true });
});

const take = (host = 'h', ns: string | null = 'pid:[1]') => acquireLock(runner, { name: 'm.yaml', pid: 100, host, pidNamespace: ns, isAlive: () => true });

describe("unlock's view of the holder", () => {
  test('nobody holds an untaken lock', async () => {
    expect(await readLockHolder(operator, 'm.yaml')).toBeUndefined();
  });

  test('the holder: run, pid, host, when it was taken and how old its heartbeat is', async () => {
    const runId = await runner.useManifest('m.yaml').startRun('h', 100, null);
    const started = clock.now();
    await take();
    clock.advance(25_000);
    expect(await readLockHolder(operator, 'm.yaml', { host: 'h', pidNamespace: 'pid:[1]', isAlive: () => true })).toMatchObject({
      name: 'm.yaml', host: 'h', pid: 100, runId, acquiredAt: started, heartbeatAgeMs: 25_000, process: 'alive', stale: false,
    });
  });

  test.each([
    ['alive, on this host in our pid namespace', { host: 'h', ns: 'pid:[1]', alive: true }, 'alive'],
    ['gone, on this host in our pid namespace', { host: 'h', ns: 'pid:[1]', alive: false }, 'gone'],
    ['on another host: its pid means nothing here', { host: 'other', ns: 'pid:[1]', alive: false }, 'another host'],
    ['in another pid namespace (another container)', { host: 'h', ns: 'pid:[2]', alive: false }, 'another pid namespace'],
    ['in a pid namespace not known', { host: 'h', ns: null, alive: false }, 'another pid namespace'],
  ])('a holder %s is reported as %s', async (_name, holder, expected) => {
    await take(holder.host, holder.ns);
    expect((await readLockHolder(operator, 'm.yaml', { host: 'h', pidNamespace: 'pid:[1]', isAlive: () => holder.alive }))?.process).toBe(expected);
  });

  test('a heartbeat older than a minute is stale', async () => {
    await take('other');
    clock.advance(60_001);
    expect((await readLockHolder(operator, 'm.yaml'))?.stale).toBe(true);
  });
});

describe('unlock --force', () => {
  test('deletes the lock, records lock:forced with the holder and who forced it, and the holder stops at its next heartbeat', async () => {
    let lost = 0;
    const held = await acquireLock(runner, { name: 'm.yaml', pid: 100, host: 'other', isAlive: () => true, onLost: () => lost++ });
    const holder = (await readLockHolder(operator, 'm.yaml'))!;
    expect(await forceUnlock(operator, holder, { user: 'ops', host: 'desk', pid: 7 })).toBe(true);
    expect(db.prepare('SELECT count(*) FROM locks').pluck().get()).toBe(0);
    expect(readEvents(db, { type: 'lock:forced' }).map((e) => e.data)).toEqual([
      { name: 'm.yaml', holder: { host: 'other', pid: 100, runId: null, heartbeatAgeMs: 0, process: 'another host' }, by: { user: 'ops', host: 'desk', pid: 7 } },
    ]);
    expect(await held.beat()).toBe(false);
    expect(lost).toBe(1);
  });

  test('a lock taken anew after it was looked at is left alone', async () => {
    const first = await take('other');
    const seen = (await readLockHolder(operator, 'm.yaml'))!;
    await first.release();
    await take('other');
    expect(await forceUnlock(operator, seen)).toBe(false);
    expect(db.prepare('SELECT count(*) FROM locks').pluck().get()).toBe(1);
    expect(readEvents(db, { type: 'lock:forced' })).toEqual([]);
  });
});
