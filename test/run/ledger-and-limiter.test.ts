import { describe, expect, test } from 'vitest';
import { BudgetLedger } from '../../src/run/budget/budget-ledger.js';
import { AdaptiveRateLimiter } from '../../src/run/submit/rate-limiter.js';
import { ManualClock } from '../../src/util/clock.js';

/** Lets settled promises run their continuations (no time passes). */
const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('the budget ledger', () => {
  test('starts from what earlier runs spent and still hold', () => {
    const ledger = new BudgetLedger({ cap: 100, spent: 35, held: new Map([['c', 20], ['d', 10]]) });
    expect(ledger.spent).toBe(35);
    expect(ledger.reservedTotal).toBe(30);
    expect(ledger.headroom).toBe(35);
  });

  test('never reserves past the cap; actual cost replaces the reservation; a release gives it back', () => {
    const ledger = new BudgetLedger({ cap: 100, spent: 0, held: new Map() });
    expect(ledger.reserve('a', 60)).toBe(true);
    expect(ledger.reserve('b', 60)).toBe(false);
    ledger.settle('a', 25);
    expect(ledger.reserve('b', 60)).toBe(true);
    expect(ledger.headroom).toBe(15);
    ledger.release('b');
    expect(ledger.headroom).toBe(75);
  });

  test('without a cap everything fits', () => {
    const ledger = new BudgetLedger({ cap: null, spent: 0, held: new Map() });
    expect(ledger.reserve('a', 1e9)).toBe(true);
    expect(ledger.headroom).toBe(Infinity);
  });
});

describe('the adaptive rate limiter', () => {
  /** Asks `n` turns now; returns how many were granted after `ms` more. */
  async function grantedAfter(limiter: AdaptiveRateLimiter, clock: ManualClock, n: number, ms: number): Promise<number> {
    let granted = 0;
    for (let i = 0; i < n; i++) void limiter.acquire().then(() => granted++);
    await flush();
    clock.advance(ms);
    await flush();
    return granted;
  }

  test('a full bucket lets a burst through at once, then hands out turns at its rate, in call order', async () => {
    const clock = new ManualClock(0);
    const limiter = new AdaptiveRateLimiter({ ratePerSecond: 10, burst: 2, clock });
    const granted: number[] = [];
    const all = [0, 1, 2, 3].map((i) => limiter.acquire().then(() => granted.push(i)));
    await flush();
    expect(granted).toEqual([0, 1]);
    clock.advance(100);
    await flush();
    expect(granted).toEqual([0, 1, 2]);
    clock.advance(100);
    await Promise.all(all);
    expect(granted).toEqual([0, 1, 2, 3]);
  });

  test('while it holds callers back and no 429 comes, the rate doubles each quarter second (a slow start)', async () => {
    const clock = new ManualClock(0);
    const limiter = new AdaptiveRateLimiter({ ratePerSecond: 20, burst: 1, clock });
    await grantedAfter(limiter, clock, 10, 200);
    await grantedAfter(limiter, clock, 1, 0);
    expect(limiter.currentRate).toBe(20);
    await grantedAfter(limiter, clock, 10, 50);
    await grantedAfter(limiter, clock, 1, 0);
    expect(limiter.currentRate).toBe(40);
    await grantedAfter(limiter, clock, 20, 250);
    await grantedAfter(limiter, clock, 1, 0);
    expect(limiter.currentRate).toBe(80);
  });

  test('a rate that holds nobody back does not grow', async () => {
    const clock = new ManualClock(0);
    const limiter = new AdaptiveRateLimiter({ ratePerSecond: 20, burst: 10, clock });
    for (let second = 0; second < 5; second++) await grantedAfter(limiter, clock, 5, 1000);
    expect(limiter.currentRate).toBe(20);
  });

  test('a scattering of 429s among successes does not slow it down', () => {
    const clock = new ManualClock(0);
    const limiter = new AdaptiveRateLimiter({ ratePerSecond: 20, clock });
    for (let i = 0; i < 100; i++) {
      clock.advance(100);
      if (i % 5 === 0) limiter.throttled(1000);
      else limiter.succeeded();
    }
    expect(limiter.currentRate).toBe(20);
  });

  test('mostly 429s halve the rate, at most once a second, down to the floor; the Retry-After holds the whole host', async () => {
    const clock = new ManualClock(0);
    const limiter = new AdaptiveRateLimiter({ ratePerSecond: 16, minRatePerSecond: 2, burst: 100, clock });
    for (let i = 0; i < 30; i++) limiter.throttled(500);
    expect(limiter.currentRate).toBe(8);
    expect(await grantedAfter(limiter, clock, 3, 400)).toBe(0);
    clock.advance(100);
    await flush();
    for (let second = 0; second < 5; second++) {
      clock.advance(1000);
      for (let i = 0; i < 20; i++) limiter.throttled();
    }
    expect(limiter.currentRate).toBe(2);
  });

  test('after a cut it grows back additively, by a tenth of the rate it was cut from, each second it holds callers back', async () => {
    const clock = new ManualClock(0);
    const limiter = new AdaptiveRateLimiter({ ratePerSecond: 40, burst: 1, clock });
    for (let i = 0; i < 20; i++) limiter.throttled();
    expect(limiter.currentRate).toBe(20);
    clock.advance(1000);
    await grantedAfter(limiter, clock, 40, 1000);
    await grantedAfter(limiter, clock, 1, 0);
    expect(limiter.currentRate).toBe(24);
  });

  test("under the account's share it is cut to the share at once and never grows past it; lifting the share lets it grow again", async () => {
    const clock = new ManualClock(0);
    const limiter = new AdaptiveRateLimiter({ ratePerSecond: 20, burst: 1, clock });
    limiter.capAt(5);
    expect(limiter.currentRate).toBe(5);
    await grantedAfter(limiter, clock, 10, 1000);
    await grantedAfter(limiter, clock, 1, 0);
    expect(limiter.currentRate).toBe(5);
    limiter.capAt(null);
    await grantedAfter(limiter, clock, 10, 300);
    await grantedAfter(limiter, clock, 1, 0);
    expect(limiter.currentRate).toBe(10);
  });

  test('a cooldown another run shared holds every request until it has passed', async () => {
    const clock = new ManualClock(0);
    const limiter = new AdaptiveRateLimiter({ ratePerSecond: 20, burst: 10, clock });
    limiter.pauseFor(700);
    expect(await grantedAfter(limiter, clock, 3, 600)).toBe(0);
    clock.advance(100);
    await flush();
    expect(await grantedAfter(limiter, clock, 1, 0)).toBe(1);
  });
});

describe('the budget ledger when costs surprise', () => {
  test('an unreported cost keeps the reservation as the cost; a cost above it is counted in full and is an overrun', () => {
    const ledger = new BudgetLedger({ cap: 30, spent: 0, held: new Map() });
    ledger.reserve('a', 10);
    ledger.settle('a', null);
    expect(ledger.spent).toBe(10);
    ledger.reserve('b', 10);
    ledger.settle('b', 25);
    expect(ledger.spent).toBe(35);
    expect(ledger.overruns).toEqual([{ key: 'b', used: 25, reserved: 10 }]);
    expect(ledger.overCap).toBe(true);
  });
});
