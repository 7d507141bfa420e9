import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { LockedError } from '../../src/errors.js';
import { acquireLock, openStore, pidIsAlive, readEvents, type Store } from '../../src/state/index.js';
import { ManualClock } from '../../src/util/clock.js';
import { peek } from './peek.js';

let dir: string;
let first: Store;
let second: Store;
/** The file as committed, read apart from both stores. */
let db: Database.Database;
const clock = new ManualClock();

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'reelpipe-lock-'));
  first = await openStore(join(dir, 'r.db'), clock);
  second = await openStore(join(dir, 'r.db'), clock);
  db = peek(join(dir, 'r.db'));
});
afterEach(async () => {
  db.close();
  await first.close();
  await second.close();
  rmSync(dir, { recursive: true, force: true });
});

const alive = () => true;
const dead = () => false;

describe('the run lock', () => {
  test('a second run of the same manifest is refused at once while the first is alive', async () => {
    await acquireLock(first, { name: 'm.yaml', pid: 100, host: 'h', isAlive: alive });
    await expect(acquireLock(second, { name: 'm.yaml', pid: 200, host: 'h', isAlive: alive })).rejects.toThrow(LockedError);
  });

  test('runs of different manifests on one database do not block each other, and each owns its jobs', async () => {
    await acquireLock(first, { name: 'a.yaml', pid: 100, host: 'h', isAlive: alive });
    await expect(acquireLock(second, { name: 'b.yaml', pid: 200, host: 'h', isAlive: alive })).resolves.toBeDefined();
    // The lock is per manifest, so must the jobs be: an identical job in both is two rows.
    const same = { key: 'shorts:abc', step: 'shorts', kind: 'ai_short' as const, request: { script: 'x' }, creditsEstimated: 5 };
    await first.syncPlan('a.yaml', [same]);
    await second.syncPlan('b.yaml', [same]);
    await first.write({ key: same.key, move: { to: 'submitting', type: 'job:intent' } });
    expect(await second.jobsWithStatus(['submitting'])).toEqual([]);
    expect((await second.job(same.key))?.status).toBe('planned');
  });

  test('released, the lock can be taken again', async () => {
    await (await acquireLock(first, { name: 'm.yaml', pid: 100, host: 'h', isAlive: alive })).release();
    await expect(acquireLock(second, { name: 'm.yaml', pid: 200, host: 'h', isAlive: alive })).resolves.toBeDefined();
  });

  test.each([
    ['a dead pid in our pid namespace on this host', { host: 'h', isAlive: dead, advance: 0 }, 'dead pid'],
    ['a stale heartbeat on another host', { host: 'other', isAlive: alive, advance: 61_000 }, 'stale heartbeat'],
    ['a stale heartbeat of a live-looking pid', { host: 'h', isAlive: alive, advance: 61_000 }, 'stale heartbeat'],
  ])('a lock left by %s is broken and the event recorded', async (_name, setup, reason) => {
    await acquireLock(first, { name: 'm.yaml', pid: 100, host: setup.host, isAlive: alive, pidNamespace: 'pid:[1]' });
    clock.advance(setup.advance);
    await acquireLock(second, { name: 'm.yaml', pid: 200, host: 'h', isAlive: setup.isAlive, pidNamespace: 'pid:[1]' });
    const broken = readEvents(db, { type: 'lock:broken' });
    expect(broken).toHaveLength(1);
    expect(broken[0]?.data).toMatchObject({ pid: 100, reason });
  });

  describe('a dead-looking pid in another pid namespace (containers sharing a hostname)', () => {
    const container = (ns: string | null) => ({ name: 'm.yaml', host: 'shared', pidNamespace: ns, heartbeatMs: 10_000 });

    test.each([
      ['another namespace', 'pid:[2]'],
      ['a namespace not known', null],
    ])('in %s, a holder that beat within its lease is alive: refused (exit 75), as it may still be sending', async (_name, ns) => {
      await acquireLock(first, { ...container('pid:[1]'), pid: 1, isAlive: alive });
      clock.advance(59_000);
      await expect(acquireLock(second, { ...container(ns), pid: 7, isAlive: dead })).rejects.toThrow(LockedError);
      expect(readEvents(db, { type: 'lock:broken' })).toEqual([]);
    });

    test('once its heartbeat is older than its lease, the dead pid breaks it', async () => {
      await acquireLock(first, { ...container('pid:[1]'), pid: 1, isAlive: alive });
      clock.advance(60_001);
      await acquireLock(second, { ...container('pid:[2]'), pid: 7, isAlive: dead });
      expect(readEvents(db, { type: 'lock:broken' })[0]?.data).toMatchObject({ pid: 1, reason: 'dead pid' });
    });

    test("a taker with a shorter lease waits out the holder's own lease: the holder sends nothing past it", async () => {
      await acquireLock(first, { ...container('pid:[1]'), pid: 1, isAlive: alive, staleAfterMs: 600_000 });
      clock.advance(120_000);
      await expect(acquireLock(second, { ...container('pid:[1]'), pid: 7, isAlive: alive, staleAfterMs: 2_000 })).rejects.toThrow(LockedError);
      clock.advance(480_001);
      await acquireLock(second, { ...container('pid:[1]'), pid: 7, isAlive: alive, staleAfterMs: 2_000 });
      expect(readEvents(db, { type: 'lock:broken' })[0]?.data).toMatchObject({ pid: 1, reason: 'stale heartbeat' });
    });
  });

  test('a heartbeat keeps a long run from looking stale', async () => {
    const held = await acquireLock(first, { name: 'm.yaml', pid: 100, host: 'other', isAlive: alive });
    clock.advance(50_000);
    await held.beat();
    clock.advance(50_000);
    await expect(acquireLock(second, { name: 'm.yaml', pid: 200, host: 'h', isAlive: alive })).rejects.toThrow(LockedError);
  });

  test('the same host and pid is not "us": two containers both running as pid 1 on one hostname exclude each other', async () => {
    await acquireLock(first, { name: 'm.yaml', pid: 1, host: 'container', isAlive: alive });
    await expect(acquireLock(second, { name: 'm.yaml', pid: 1, host: 'container', isAlive: alive })).rejects.toThrow(LockedError);
  });

  test('the refusal names the run holding the lock (its run row exists before the lock is taken)', async () => {
    const runId = await first.useManifest('m.yaml').startRun('h', 100, null);
    await acquireLock(first, { name: 'm.yaml', pid: 100, host: 'h', isAlive: alive });
    await expect(acquireLock(second, { name: 'm.yaml', pid: 200, host: 'h', isAlive: alive })).rejects.toThrow(`another run (pid 100 on h, run ${runId})`);
  });

  test('a holder whose lock was broken learns it at its next heartbeat, once, and never removes the new holder\'s lock', async () => {
    let lost = 0;
    const old = await acquireLock(first, { name: 'm.yaml', pid: 100, host: 'other', isAlive: alive, onLost: () => lost++ });
    clock.advance(61_000);
    await acquireLock(second, { name: 'm.yaml', pid: 200, host: 'h', isAlive: alive });
    expect(await old.beat()).toBe(false);
    expect(await old.beat()).toBe(false);
    expect(lost).toBe(1);
    expect(readEvents(db, { type: 'lock:lost' })).toHaveLength(1);
    await old.release();
    expect(db.prepare('SELECT pid FROM locks WHERE name = ?').pluck().get('m.yaml')).toBe(200);
  });

  test('pidIsAlive knows this process is alive and a child that exited is not', async () => {
    expect(pidIsAlive(process.pid)).toBe(true);
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => child.on('exit', resolve));
    expect(pidIsAlive(child.pid ?? -1)).toBe(false);
  });
});
