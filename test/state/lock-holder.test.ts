import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { StateStore, acquireLock, forceUnlock, readEvents, readLockHolder } from '../../src/state/index.js';
import { ManualClock } from '../../src/util/clock.js';

let dir: string;
let runner: StateStore;
let operator: StateStore;
let clock: ManualClock;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'reelpipe-lock-holder-'));
  clock = new ManualClock();
  runner = StateStore.open(join(dir, 'r.db'), clock);
  operator = StateStore.open(join(dir, 'r.db'), clock);
});
afterEach(() => {
  runner.close();
  operator.close();
  rmSync(dir, { recursive: true, force: true });
});

const take = (host = 'h', ns: string | null = 'pid:[1]') => acquireLock(runner, { name: 'm.yaml', pid: 100, host, pidNamespace: ns, isAlive: () => true });

describe("unlock's view of the holder", () => {
  test('nobody holds an untaken lock', () => {
    expect(readLockHolder(operator, 'm.yaml')).toBeUndefined();
  });

  test('the holder: run, pid, host, when it was taken and how old its heartbeat is', () => {
    const runId = runner.startRun('m.yaml', 'h', 100, null);
    const started = clock.now();
    take();
    clock.advance(25_000);
    expect(readLockHolder(operator, 'm.yaml', { host: 'h', pidNamespace: 'pid:[1]', isAlive: () => true })).toMatchObject({
      name: 'm.yaml', host: 'h', pid: 100, runId, acquiredAt: started, heartbeatAgeMs: 25_000, process: 'alive', stale: false,
    });
  });

  test.each([
    ['alive, on this host in our pid namespace', { host: 'h', ns: 'pid:[1]', alive: true }, 'alive'],
    ['gone, on this host in our pid namespace', { host: 'h', ns: 'pid:[1]', alive: false }, 'gone'],
    ['on another host: its pid means nothing here', { host: 'other', ns: 'pid:[1]', alive: false }, 'another host'],
    ['in another pid namespace (another container)', { host: 'h', ns: 'pid:[2]', alive: false }, 'another pid namespace'],
    ['in a pid namespace not known', { host: 'h', ns: null, alive: false }, 'another pid namespace'],
  ])('a holder %s is reported as %s', (_name, holder, expected) => {
    take(holder.host, holder.ns);
    expect(readLockHolder(operator, 'm.yaml', { host: 'h', pidNamespace: 'pid:[1]', isAlive: () => holder.alive })?.process).toBe(expected);
  });

  test('a heartbeat older than a minute is stale', () => {
    take('other');
    clock.advance(60_001);
    expect(readLockHolder(operator, 'm.yaml')?.stale).toBe(true);
  });
});

describe('unlock --force', () => {
  test('deletes the lock, records lock:forced with the holder and who forced it, and the holder stops at its next heartbeat', () => {
    let lost = 0;
    const held = acquireLock(runner, { name: 'm.yaml', pid: 100, host: 'other', isAlive: () => true, onLost: () => lost++ });
    const holder = readLockHolder(operator, 'm.yaml')!;
    expect(forceUnlock(operator, holder, { user: 'ops', host: 'desk', pid: 7 })).toBe(true);
    expect(operator.db.prepare('SELECT count(*) FROM locks').pluck().get()).toBe(0);
    expect(readEvents(operator.db, { type: 'lock:forced' }).map((e) => e.data)).toEqual([
      { name: 'm.yaml', holder: { host: 'other', pid: 100, runId: null, heartbeatAgeMs: 0, process: 'another host' }, by: { user: 'ops', host: 'desk', pid: 7 } },
    ]);
    expect(held.beat()).toBe(false);
    expect(lost).toBe(1);
  });

  test('a lock taken anew after it was looked at is left alone', () => {
    const first = take('other');
    const seen = readLockHolder(operator, 'm.yaml')!;
    first.release();
    take('other');
    expect(forceUnlock(operator, seen)).toBe(false);
    expect(operator.db.prepare('SELECT count(*) FROM locks').pluck().get()).toBe(1);
    expect(readEvents(operator.db, { type: 'lock:forced' })).toEqual([]);
  });
});
