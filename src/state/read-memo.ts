import type { MoneySums } from './money-sums.js';

/**
 * The read of a whole manifest a run makes as it starts and again as it ends — the manifest's
 * money — answered again from memory when the store can tell that nothing was written since. A
 * finished 10,000-job manifest run again writes nothing in between, and the read is 10,000 rows.
 * (Every job's state is read a page at a time, never whole: Store.jobStatePage.)
 *
 * `version()` is the store's word on what the database holds, taken before each read: equal
 * versions mean no write, by this store or any other, happened between them; null means it cannot
 * tell (then nothing is kept). SQLite's is exact (`PRAGMA data_version` for other connections,
 * `total_changes()` for its own); PostgreSQL's is its own writes counted, and only under the run
 * lock, which keeps every other writer of the manifest's jobs out (pg-held-rows.ts).
 *
 * A store's version must move on after any write that ends once its read began (WriteCount
 * below does so for PostgreSQL), so a read that ran beside a write is never answered again. Money
 * is kept for one plan's jobs (the same array, by identity).
 *
 * After each write the store makes, what is kept is let go once the version moved (`dropStale`):
 * it could never be answered again, and a run that writes would otherwise hold every job's money
 * from its start to its end (at 100,000 jobs, megabytes nobody reads). A write that changed
 * nothing (a finished manifest's run again) keeps it.
 */
export class ReadMemo {
  private kept: { version: string; jobs: object; money: MoneySums } | undefined;

  constructor(private readonly version: () => string | null) {}

  async moneyOf(jobs: Iterable<{ key: string }>, read: () => Promise<MoneySums>): Promise<MoneySums> {
    const version = this.version();
    if (version !== null && this.kept?.version === version && this.kept.jobs === jobs) return this.kept.money;
    const money = await read();
    this.kept = version === null ? undefined : { version, jobs, money };
    return money;
  }

  /** Drops what is kept at a version no longer current (a write moved it on); nothing to do when nothing is kept. */
  dropStale(): void {
    if (this.kept && this.kept.version !== this.version()) this.kept = undefined;
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

  /** `moved`: told each time the count moves on (the store's memo forgets then). */
  constructor(private readonly moved: () => void = () => undefined) {}

  async counted<T>(run: () => Promise<T>, changed: (value: T) => boolean = always): Promise<T> {
    let value: T;
    try {
      value = await run();
    } catch (error) {
      this.count++;
      this.moved();
      throw error;
    }
    if (changed(value)) {
      this.count++;
      this.moved();
    }
    return value;
  }
}
