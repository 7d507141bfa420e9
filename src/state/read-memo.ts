import type { JobState } from './job-row.js';
import type { MoneySums } from './money-sums.js';

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
 * A store's version must move on after any write that ends once its read began (WriteCount
 * below does so for PostgreSQL), so a read that ran beside a write is never answered again. Money
 * is kept for one plan's jobs (the same array, by identity).
 *
 * After each write the store makes, what is kept is let go once the version moved (`dropStale`):
 * it could never be answered again, and a run that writes would otherwise hold every job's row,
 * and every job's money, from its start to its end (at 100,000 jobs, tens of megabytes nobody
 * reads). A write that changed nothing (a finished manifest's run again) keeps it.
 */
export class ReadMemo {
  private readonly kept = new Map<'states' | 'money', { version: string; key: object | null; value: unknown }>();

  constructor(private readonly version: () => string | null) {}

  jobStates(read: () => Promise<JobState[]>): Promise<JobState[]> {
    return this.remembered('states', null, read);
  }

  moneyOf(jobs: Iterable<{ key: string }>, read: () => Promise<MoneySums>): Promise<MoneySums> {
    return this.remembered('money', jobs, read);
  }

  /** Drops what is kept at a version no longer current (a write moved it on); nothing to do when nothing is kept. */
  dropStale(): void {
    if (this.kept.size === 0) return;
    const version = this.version();
    for (const [slot, kept] of this.kept) if (kept.version !== version) this.kept.delete(slot);
  }

  private async remembered<T>(slot: 'states' | 'money', key: object | null, read: () => Promise<T>): Promise<T> {
    const version = this.version();
    const kept = this.kept.get(slot);
    if (version !== null && kept?.version === version && kept.key === key) return kept.value as T;
    const value = await read();
    if (version === null) this.kept.delete(slot);
    else this.kept.set(slot, { version, key, value });
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
