import type Database from 'better-sqlite3';
import { ATTEMPT_RECORD_COLUMNS, attemptRecordOf, type AttemptEnd, type AttemptRecord, type AttemptValues } from '../attempt-records.js';
import { byJob } from '../by-job.js';
import { statement } from './statements.js';
import { tableRead } from './table-order.js';

/**
 * What each attempt of a job came to (migration 17). An attempt is one creating request
 * (attempts table, docs/exactly-once.md); beside how the request itself went (`state`), it keeps
 * how the remote job it made ended — `ended`, the job's status then, and the service's reason —
 * and, when `retries` resubmitted the job after it, the run that did (`retried_in_run`). Its cost
 * is its charge's (charges.ts). A job's row holds only its last attempt's; this is every one.
 *
 * Written inside the store's transaction that moves the job (store.ts), never on its own.
 */

export type { AttemptEnd, AttemptRecord } from '../attempt-records.js';

/** The newest attempt of the job ended as `ended`, for `reason` (null: none given). */
export function endAttempt(db: Database.Database, manifest: string, key: string, ended: AttemptEnd, reason: string | null): void {
  statement(db, `UPDATE attempts SET ended = ?, ended_reason = ?
    WHERE id = (SELECT max(id) FROM attempts WHERE manifest = ? AND job_key = ?)`).run(ended, reason, manifest, key);
}

/** The newest attempt of the job is the one run `runId` retried automatically. */
export function markRetried(db: Database.Database, manifest: string, key: string, runId: number): void {
  statement(db, `UPDATE attempts SET retried_in_run = ?
    WHERE id = (SELECT max(id) FROM attempts WHERE manifest = ? AND job_key = ?)`).run(runId, manifest, key);
}

/** How many times run `runId` retried the job automatically. */
export function retriesInRun(db: Database.Database, manifest: string, key: string, runId: number): number {
  return statement(db, 'SELECT count(*) FROM attempts WHERE manifest = ? AND job_key = ? AND retried_in_run = ?', { pluck: true })
    .get(manifest, key, runId) as number;
}

/** `scan`: the table read in its own order (table-order.ts), not through its (manifest, job) index. */
const selectAttempts = (scan: boolean) =>
  `SELECT ${ATTEMPT_RECORD_COLUMNS} FROM ${tableRead('attempts', scan, 'a')} LEFT JOIN charges c ON c.attempt_id = a.id WHERE a.manifest = ? ORDER BY a.id`;

/**
 * Every attempt of the manifest's jobs, oldest first, by job key: one query (status and the report
 * read them all). `scan`: the manifest holds most of the state (table-order.ts).
 */
export function readAttemptsByJob(db: Database.Database, manifest: string, scan = false): Map<string, AttemptRecord[]> {
  return byJob(statement(db, selectAttempts(scan), { raw: true }).iterate(manifest) as Iterable<AttemptValues>, (values) => [values[0], attemptRecordOf(values)]);
}
