import type Database from 'better-sqlite3';
import { statement } from './statements.js';

interface Queued {
  fn: () => unknown;
  durable: boolean;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: writes queued in one turn of the event loop are committed together, in one
 * IMMEDIATE transaction — durably (synchronous=FULL, so on disk before anyone is told) when any of
 * them asks. Why: every job commits its intent before its POST and its remote id after it; a wave
 * of 64 jobs made that 128 commits (and fsyncs) in a row on the event loop, each holding up every
 * other job. Batched, a wave's intents share one. Each write runs in its own savepoint, so one that
 * throws (an illegal transition) rolls back alone and only its caller hears of it; a commit that
 * fails (a full disk) fails every write of the batch, and each caller hears that.
 */
export class WriteBatch {
  private queue: Queued[] = [];
  /** Counts the transactions the batch opened: which one a write runs in. */
  serial = 0;

  constructor(
    private readonly db: Database.Database,
    /** Runs `fn` in one IMMEDIATE transaction (the store's wrapper). */
    private readonly immediate: (fn: () => unknown) => unknown,
    /** Runs `fn` in a savepoint of the open transaction. */
    private readonly savepoint: (fn: () => unknown) => unknown,
  ) {}

  /** Queues `fn`; resolves with its result once the batch holding it has committed. */
  add<T>(fn: () => T, durable: boolean): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, durable, resolve: resolve as (value: unknown) => void, reject });
      if (this.queue.length === 1) setImmediate(() => this.flush());
    });
  }

  /**
   * Resolves once every write queued so far has committed (rejects as they do); at once when none
   * is queued — so closing an idle store opens no transaction, and never waits on another process's lock.
   */
  settled(): Promise<void> {
    return this.queue.length === 0 ? Promise.resolve() : this.add(() => undefined, false);
  }

  private flush(): void {
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    const outcomes: ({ value: unknown } | { error: unknown })[] = [];
    const durable = batch.some((item) => item.durable);
    try {
      if (durable) statement(this.db, 'PRAGMA synchronous = FULL').run();
      this.serial++;
      this.immediate(() => {
        for (const item of batch) {
          try {
            outcomes.push({ value: this.savepoint(item.fn) });
          } catch (error) {
            outcomes.push({ error });
          }
        }
      });
    } catch (error) {
      for (const item of batch) item.reject(error);
      return;
    } finally {
      if (durable) statement(this.db, 'PRAGMA synchronous = NORMAL').run();
    }
    batch.forEach((item, i) => {
      const outcome = outcomes[i]!;
      if ('error' in outcome) item.reject(outcome.error);
      else item.resolve(outcome.value);
    });
  }
}
