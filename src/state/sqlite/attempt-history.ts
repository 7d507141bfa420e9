import type Database from 'better-sqlite3';
import type { AttemptState } from './job-row.js';
import type { JobStatus } from '../job-status.js';
import { costOf } from './money.js';
import { statement } from './statements.js';

/**
 * What each attempt of a job came to (migration 17). An attempt is one creating request
 * (attempts table, docs/exactly-once.md); beside how the request itself went (`state`), it keeps
 * how the remote job it made ended — `ended`, the job's status then, and the service's reason —
 * and, when `retries` resubmitted the job after it, the run that did (`retried_in_run`). Its cost
 * is its charge's (charges.ts). A job's row holds only its last attempt's; this is every one.
 *
 * Written inside the store's transaction that moves the job (store.ts), never on its own.
 */

/** The statuses an attempt's remote job may end in (the job's status at that moment). */
export type AttemptEnd = Extract<JobStatus, 'done' | 'failed' | 'rejected' | 'partly_failed'>;

/** One attempt as the state database records it, with its charge's figures. */
export interface AttemptRecord {
  id: number;
  jobKey: string;
  runId: number | null;
  state: AttemptState;
  intentAt: number;
  /** The remote job it made: the answer's id, or the one a webhook delivery named. */
  remoteId: string | null;
  /** Why the request itself went wrong (in doubt, refused, not sent). */
  error: string | null;
  ended: AttemptEnd | null;
  endedReason: string | null;
  /** The run that resubmitted the job automatically after this attempt (`retries`); null if none did. */
  retriedInRun: number | null;
  /** Its charge's cost (null: not known yet, or never reported), and refunds; null without a charge (before migration 14). */
  charge: { credits: number | null; refunded: number } | null;
}

/** Statuses the job is in while an attempt's remote job may be under way (or in doubt). */
const SENT: readonly JobStatus[] = ['submitting', 'submitted', 'running', 'in_doubt'];

/**
 * How the newest attempt ended when its job moves `from` → `to`, or null when the move says
 * nothing of it: a sent job's remote end (done, failed, rejected — a 400 at submission included),
 * or its files showing some of its items failed (done → partly_failed).
 */
export function attemptEndOf(from: JobStatus, to: JobStatus): AttemptEnd | null {
  if (to === 'partly_failed') return from === 'done' ? to : null;
  return (to === 'done' || to === 'failed' || to === 'rejected') && SENT.includes(from) ? to : null;
}

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

type AttemptValues = [
  jobKey: string, id: number, runId: number | null, state: AttemptState, intentAt: number, remoteId: string | null, error: string | null,
  ended: AttemptEnd | null, endedReason: string | null, retriedInRun: number | null, chargeState: string | null, charged: number | null, refunded: number | null,
];

const SELECT_ATTEMPTS = `SELECT a.job_key, a.id, a.run_id, a.state, a.intent_at, coalesce(a.remote_id, a.delivered_id), a.error,
  a.ended, a.ended_reason, a.retried_in_run, c.state, c.charged, c.refunded
  FROM attempts a LEFT JOIN charges c ON c.attempt_id = a.id WHERE a.manifest = ? ORDER BY a.id`;

/** Every attempt of the manifest's jobs, oldest first, by job key: one query (status and the report read them all). */
export function readAttemptsByJob(db: Database.Database, manifest: string): Map<string, AttemptRecord[]> {
  const byJob = new Map<string, AttemptRecord[]>();
  for (const values of statement(db, SELECT_ATTEMPTS, { raw: true }).iterate(manifest) as Iterable<AttemptValues>) {
    const [jobKey, id, runId, state, intentAt, remoteId, error, ended, endedReason, retriedInRun, chargeState, charged, refunded] = values;
    const charge = chargeState === null ? null : { credits: costOf(chargeState, charged), refunded: refunded ?? 0 };
    const list = byJob.get(jobKey);
    const record: AttemptRecord = { id, jobKey, runId, state, intentAt, remoteId, error, ended, endedReason, retriedInRun, charge };
    if (list) list.push(record);
    else byJob.set(jobKey, [record]);
  }
  return byJob;
}
