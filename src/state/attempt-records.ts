import type { AttemptState } from './job-row.js';
import type { JobStatus } from './job-status.js';
import { costOf } from './money-sums.js';

/** The statuses an attempt's remote job may end in (the job's status at that moment). */
export type AttemptEnd = Extract<JobStatus, 'done' | 'failed' | 'rejected' | 'partly_failed'>;

/**
 * One attempt as the state records it (migration 17, sqlite/attempt-history.ts), with its
 * charge's figures: what `status` and the report show of each creating request of a job.
 */
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

/**
 * An AttemptRecord's columns, of `attempts a LEFT JOIN charges c ON c.attempt_id = a.id`, in the
 * order AttemptValues holds them: the same text in every store's SELECT. Each column has a name of
 * its own, so a row read as an object (PostgreSQL's) keeps every value.
 */
export const ATTEMPT_RECORD_COLUMNS = `a.job_key, a.id, a.run_id, a.state, a.intent_at, coalesce(a.remote_id, a.delivered_id) AS remote_id, a.error,
  a.ended, a.ended_reason, a.retried_in_run, c.state AS charge_state, c.charged, c.refunded`;

export type AttemptValues = [
  jobKey: string, id: number, runId: number | null, state: AttemptState, intentAt: number, remoteId: string | null, error: string | null,
  ended: AttemptEnd | null, endedReason: string | null, retriedInRun: number | null, chargeState: string | null, charged: number | null, refunded: number | null,
];

export function attemptRecordOf(values: AttemptValues): AttemptRecord {
  const [jobKey, id, runId, state, intentAt, remoteId, error, ended, endedReason, retriedInRun, chargeState, charged, refunded] = values;
  const charge = chargeState === null ? null : { credits: costOf(chargeState, charged), refunded: refunded ?? 0 };
  return { id, jobKey, runId, state, intentAt, remoteId, error, ended, endedReason, retriedInRun, charge };
}
