import type { AttemptRecord, JobStatus } from '../state/index.js';
import { oneLine } from '../util/one-line.js';

/**
 * One attempt of a job (one creating request) as `status --json`, the report and results.json
 * show it: when it was sent, the remote job it made, how it ended and why, what it cost, and the
 * run that resubmitted the job after it (`retries`), if one did.
 */
export interface AttemptFact {
  /** When its intent was committed (epoch ms): the request went out right after. */
  at: number;
  runId: number | null;
  remoteId: string | null;
  ended: AttemptEnding;
  /** The service's reason it failed or was refused, or what went wrong with the request. */
  reason: string | null;
  /** What its remote job cost, net of refunds; null when not known (yet); 0 when it made nothing. */
  credits: number | null;
  /** The run that resubmitted the job automatically after it (`retries`); null when none did. */
  retriedInRun: number | null;
}

/**
 * How an attempt ended, in the words of the states (docs/report.md#states) where its remote job
 * ended, else what became of the request: `submitting` (no answer recorded yet), `under way` (its
 * remote job is not finished), `not sent`, `created nothing` (searched for and proved absent),
 * `retried` (answered, then planned again before its end was recorded: a state from before
 * attempts kept their ends).
 */
export type AttemptEnding =
  | 'finished' | 'partly failed' | 'failed' | 'rejected' | 'in doubt' | 'submitting' | 'under way' | 'not sent' | 'created nothing' | 'retried';

/** Characters kept of a reason (as for a job's own reason in job-facts.ts). */
const REASON_MAX = 1000;

const ENDED_AS: Record<NonNullable<AttemptRecord['ended']>, AttemptEnding> = {
  done: 'finished', partly_failed: 'partly failed', failed: 'failed', rejected: 'rejected',
};

/** A job's status, read as its last attempt's end when the attempt has none recorded (a state from before migration 17). */
const STATUS_END: Partial<Record<JobStatus, AttemptEnding>> = {
  done: 'finished', downloaded: 'finished', hook_failed: 'finished', partly_failed: 'partly failed', failed: 'failed', rejected: 'rejected',
};

const UNDER_WAY: readonly JobStatus[] = ['submitting', 'submitted', 'running', 'in_doubt'];

/** The job's attempts as shown; `status` is the job's, which says how its last attempt ended when the attempt does not. */
export function attemptFacts(records: readonly AttemptRecord[], status: JobStatus | null): AttemptFact[] {
  return records.map((a, i) => {
    const last = i === records.length - 1;
    const reason = a.endedReason ?? a.error;
    return {
      at: a.intentAt,
      runId: a.runId,
      remoteId: a.remoteId,
      ended: endingOf(a, last ? status : null),
      reason: reason === null ? null : oneLine(reason, REASON_MAX),
      credits: a.charge ? a.charge.credits : null,
      retriedInRun: a.retriedInRun,
    };
  });
}

function endingOf(a: AttemptRecord, jobStatus: JobStatus | null): AttemptEnding {
  if (a.ended) return ENDED_AS[a.ended];
  switch (a.state) {
    case 'intent':
      return 'submitting';
    case 'in_doubt':
      return 'in doubt';
    case 'not_sent':
      return 'not sent';
    case 'absent':
      return 'created nothing';
    case 'rejected':
      return 'rejected';
    default: {
      // Answered (or matched), no end recorded: the job's last attempt ends as the job did, or is
      // still under way; any other was planned again before its end was kept.
      const ended = jobStatus === null ? undefined : STATUS_END[jobStatus];
      if (ended) return ended;
      return jobStatus !== null && UNDER_WAY.includes(jobStatus) ? 'under way' : 'retried';
    }
  }
}
