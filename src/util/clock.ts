import { setTimeout as delay } from 'node:timers/promises';

/**
 * Time, as a seam. Code that waits or timestamps takes a Clock, so tests can drive time by hand
 * instead of sleeping.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms`; rejects with the signal's reason if aborted first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) => delay(ms, undefined, signal ? { signal } : undefined),
};

/**
 * A clock that only moves when told to. `sleep` resolves as soon as `advance` passes its deadline.
 */
export class ManualClock implements Clock {
  private current: number;
  private waiters: { at: number; resolve: () => void }[] = [];

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  sleep(ms: number): Promise<void> {
    if (ms <= 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ at: this.current + ms, resolve }));
  }

  /** Moves time forward and wakes every sleeper whose deadline has come. */
  advance(ms: number): void {
    this.current += ms;
    const due = this.waiters.filter((w) => w.at <= this.current);
    this.waiters = this.waiters.filter((w) => w.at > this.current);
    for (const waiter of due) waiter.resolve();
  }

  /** How many sleepers are waiting: lets a test advance only once code is parked. */
  get pending(): number {
    return this.waiters.length;
  }
}
