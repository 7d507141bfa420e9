import type { JobState } from './job-row.js';
import type { Store } from './store.js';

type Money = Awaited<ReturnType<Store['money']>>;

/**
 * The two reads of a whole manifest a run makes as it starts and again as it ends — every job's
 * state, the manifest's money — answered again from memory when the store can tell that nothing
 * was written since. A finished 10,000-job manifest run again writes nothing in between, and each
 * read is 10,000 rows.
 *
 * `version()` is the store's word on what the database holds, taken before each read: equal
 * versions mean no write, by this store or any other, happened between them; null means it cannot
 * tell (then nothing is kept). SQLite's is exact (`PRAGMA data_version` for other connections,
 * `total_changes()` for its own); PostgreSQL's is its own writes counted, and only under the run
 * lock, which keeps every other writer of the manifest's jobs out (pg-held-rows.ts).
 *
 * A version changes when a write starts and again when it ends, so a read that ran beside a
 * write is never answered again. Money is kept for one plan's jobs (the same array, by identity).
 */
export class ReadMemo {
  private states: { version: string; value: JobState[] } | null = null;
  private money: { version: string; jobs: object; value: Money } | null = null;

  constructor(private readonly version: () => string | null) {}

  async jobStates(read: () => Promise<JobState[]>): Promise<JobState[]> {
    const version = this.version();
    if (version !== null && this.states?.version === version) return this.states.value;
    const value = await read();
    this.states = version === null ? null : { version, value };
    return value;
  }

  async moneyOf(jobs: Iterable<{ key: string }>, read: () => Promise<Money>): Promise<Money> {
    const version = this.version();
    if (version !== null && this.money?.version === version && this.money.jobs === jobs) return this.money.value;
    const value = await read();
    this.money = version === null ? null : { version, jobs, value };
    return value;
  }
}

export const always = (): boolean => true;
/** For the operations that change no job, attempt, file or charge: locks, runs, claims. */
export const never = (): boolean => false;

/**
 * A store's operations that changed (or may have changed) a job, attempt, file or charge, counted
 * as each ends — also when it failed, whatever it did — unless `changed` says from its value that
 * it changed nothing. The count is a version for ReadMemo. Why after, not before: a read begun
 * before the commit may have missed it and one begun after has it; only a later read can tell
 * the two apart, and the count it sees has moved on.
 */
export class WriteCount {
  count = 0;

  async counted<T>(run: () => Promise<T>, changed: (value: T) => boolean = always): Promise<T> {
    let value: T;
    try {
      value = await run();
    } catch (error) {
      this.count++;
      throw error;
    }
    if (changed(value)) this.count++;
    return value;
  }
}
