import { POLL_BOUNDS } from './poll-schedule.js';

/**
 * Consecutive failed reads of one job (no usable answer: a 5xx past the client's own retries, an
 * answer that is not JSON, a timeout) before this run stops reading it. Why 6, with the wait
 * doubling after each failure: the job is then left alone after about 63 of its poll intervals
 * (two minutes at least, hours for a long render) — past any blip, and a run must not hold its
 * lock re-reading a job the service cannot describe. The job stays in flight in the database;
 * the next run reads it again. The first failure is said at once, so the operator sees it.
 */
export const MAX_READ_FAILURES = 6;

/** The wait before the next read of a job whose last `failures` reads failed: its usual one, doubled per failure. */
export function failedReadDelayMs(usualMs: number, failures: number, timeScale: number): number {
  return Math.min(usualMs * 2 ** failures, POLL_BOUNDS.maxMs * timeScale);
}
