import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { LockedError } from '../../src/errors.js';
import { LOCK_RETRY_MAX_MS, acquireLock, acquireLockWaiting, openStore, type Store } from '../../src/state/index.js';
import { ManualClock } from '../../src/util/clock.js';
import { peek } from './peek.js';

let dir: string;
let holder: Store;
let waiter: Store;
/** The file as committed, read apart from both stores. */
let db: Database.Database;
let clock: ManualClock;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'reelpipe-lock-wait-'));
  clock = new ManualClock();
  holder = await openStore(join(dir, 'r.db'), clock);
  waiter = await openStore(join(dir, 'r.db'), clock);
  db = peek(join(dir, 'r.db'));
});
afterEach(async () => {
  db.close();
  await holder.close();
  await waiter.close();
  rmSync(dir, { recursive: true, force: true });
});

const alive = () => true;
const held = () => acquireLock(holder, { name: 'm.yaml', pid: 100, host: 'h', isAlive: alive });
const wait = (waitMs: number, onWait?: (e: LockedError) => void) =>
  acquireLockWaiting(waiter, { name: 'm.yaml', pid: 200, host: 'h', isAlive: alive, waitMs, onWait });

/** Lets the waiter's pending promise callbacks run, then moves the clock once it is parked in a sleep. */
async function whenParked(): Promise<void> {
  for (let i = 0; i < 50 && clock.pending === 0; i++) await new Promise((resolve) => setImmediate(resolve));
  expect(clock.pending).toBe(1);
}

describe('--wait-for-lock', () => {
  test('without a wait, a held lock is refused at once (exit 75), as before', async () => {
    await held();
    await expect(wait(0)).rejects.toThrow(/another run \(pid 100 on h\) is working on m\.yaml; try again when it has finished$/);
    expect(clock.pending).toBe(0);
  });

  test('a lock released while waiting is taken at the next try', async () => {
    const first = await held();
    const said: string[] = [];
    const taking = wait(60_000, (e) => said.push(e.message));
    await whenParked();
    await first.release();
    clock.advance(1_000);
    const lock = await taking;
    expect(said).toEqual(['another run (pid 100 on h) is working on m.yaml; try again when it has finished']);
    expect(db.prepare('SELECT pid FROM locks WHERE name = ?').pluck().get('m.yaml')).toBe(200);
    await lock.release();
  });

  test('a lock still held when the wait is over is refused, saying how long it waited', async () => {
    const first = await held();
    const taking = wait(10_000);
    const outcome = taking.then(() => 'taken', (error: Error) => error);
    // Pauses double from 1 s: 1 + 2 + 4, then the 3 s left; the holder keeps beating meanwhile.
    for (const step of [1_000, 2_000, 4_000, 3_000]) {
      await whenParked();
      await first.beat();
      clock.advance(step);
    }
    const error = await outcome;
    expect(error).toBeInstanceOf(LockedError);
    expect((error as Error).message).toMatch(/working on m\.yaml; try again when it has finished; waited 10s for it \(--wait-for-lock, 5 tries\)$/);
  });

  test('the pause doubles up to its ceiling, and never sleeps past the deadline', async () => {
    const first = await held();
    const taking = wait(120_000).catch((error: Error) => error);
    const pauses: number[] = [];
    let waited = 0;
    while (waited < 120_000) {
      await whenParked();
      await first.beat();
      // Each pause as expected: still asleep a millisecond before it ends, awake at its end.
      const pause = Math.min(2 ** pauses.length * 1_000, LOCK_RETRY_MAX_MS, 120_000 - waited);
      clock.advance(pause - 1);
      expect(clock.pending).toBe(1);
      clock.advance(1);
      pauses.push(pause);
      waited += pause;
    }
    expect(await taking).toBeInstanceOf(LockedError);
    expect(pauses.slice(0, 6)).toEqual([1_000, 2_000, 4_000, 8_000, 15_000, 15_000]);
  });
});
