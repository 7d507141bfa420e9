import type { JobRow } from './job-row.js';

/**
 * A write of an all-or-nothing list (Store.writeAll) found its job no longer where the caller
 * decided on it (its `onlyFrom` did not hold): nothing of the list was written. `row` is the job
 * as it is now, for the caller to say so.
 */
export class StaleWriteError extends Error {
  constructor(readonly row: JobRow) {
    super(`job ${row.key} is ${row.status} now: nothing was written`);
    this.name = 'StaleWriteError';
  }
}
