import type { JobChange } from './job-change.js';
import type { JobRow } from './job-row.js';
import { assertTransition, type JobStatus } from './job-status.js';
import type { AttemptEnd } from './attempt-records.js';
import type { JobWrite } from './store.js';

/**
 * What a job's move means beyond its status, whatever store writes it: every store applies these
 * rules in the transaction that moves the job (sqlite/job-store.ts `transition`, postgres/pg-job-moves.ts).
 */

/** Statuses the job is in while an attempt's remote job may be under way (or in doubt). */
const SENT: readonly JobStatus[] = ['submitting', 'submitted', 'running', 'in_doubt'];

/**
 * How the newest attempt ended when its job moves `from` → `to` (attempt-history.ts), or null when
 * the move says nothing of it: a sent job's remote end (done, failed, rejected — a 400 at
 * submission included), or its files showing some of its items failed (done → partly_failed).
 */
export function attemptEndOf(from: JobStatus, to: JobStatus): AttemptEnd | null {
  if (to === 'partly_failed') return from === 'done' ? to : null;
  return (to === 'done' || to === 'failed' || to === 'rejected') && SENT.includes(from) ? to : null;
}

/** Statuses a remote job's end moves a job to: a cost read with one settles its charge. */
const ENDED_REMOTELY: readonly JobStatus[] = ['done', 'failed', 'rejected'];

export interface MoveEffects {
  /** The change as written: a job out of doubt loses its reason. */
  change: JobChange;
  /** What its open charge settles at (null: not reported); undefined when the move settles nothing. */
  settle: number | null | undefined;
  /** How its newest attempt ended, when the move says (attempt-history.ts). */
  ended: AttemptEnd | null;
}

/** Checks `from → to` against the machine of job-status.ts (StateError) and says what else the move writes. */
export function moveEffects(key: string, from: JobStatus, to: JobStatus, change: JobChange, doubtReason: string | null): MoveEffects {
  assertTransition(key, from, to);
  // A job out of doubt has no reason to be in doubt: the reason never outlives the status.
  const written = to !== 'in_doubt' && doubtReason !== null ? { ...change, doubtReason: null } : change;
  // The remote job ended and its cost was read (null: not reported): its charge settles.
  const settle = change.creditsUsed !== undefined && ENDED_REMOTELY.includes(to) ? change.creditsUsed : undefined;
  return { change: written, settle, ended: attemptEndOf(from, to) };
}

/** The status a job's downloaded files leave it in: `partly_failed` while some item it was to make has failed. */
export const madeStatus = (someItemFailed: boolean): 'downloaded' | 'partly_failed' => (someItemFailed ? 'partly_failed' : 'downloaded');

/**
 * Plans a failed or rejected job again (`reelpipe retry`, automatic retries). What its failed
 * attempt was counted as costing moves to credits_prior (which the ledger counts as spent), so the
 * money history stays whole while the job gets a fresh remote id. Policy: a failed job with no
 * reported cost was counted at its kept reservation (see BudgetLedger.settle), so that is what
 * moves; the reservation itself is zeroed, or it would be counted twice. `lapse`: its settled
 * charges lapse as retried — not a partly failed job's, whose made items are part of the job.
 */
export function planAgainMove(job: JobRow, data: Record<string, unknown>): { lapse: boolean; change: JobChange; data: Record<string, unknown> } {
  const counted = job.creditsUsed ?? (job.status === 'failed' ? job.creditsReserved : 0);
  return {
    lapse: job.status !== 'partly_failed',
    change: {
      creditsPrior: job.creditsPrior + counted,
      creditsReserved: 0,
      creditsUsed: null,
      remoteId: null,
      remoteStatus: null,
      result: null,
      failedReason: null,
      finishedAt: null,
    },
    data: { previous: job.status, remoteId: job.remoteId, failedReason: job.failedReason, ...data },
  };
}

/** Whether an automatic retry may plan a job in `status` again (Store.retryInRun). */
export const retriableInRun = (status: JobStatus | undefined): boolean => status === 'failed' || status === 'partly_failed';

/** The write that closes in doubt a job a dead run left `submitting` (Store.recoverInterrupted). */
export function interruptedWrite(key: string, why: string): JobWrite {
  return {
    key,
    attempt: { id: 'open intent', state: 'in_doubt', error: 'the run ended before the answer was recorded' },
    move: { to: 'in_doubt', change: { doubtReason: why }, type: 'job:in-doubt', data: { message: why } },
  };
}

/** How many of a job's recorded files are not on disk with their checksum (Store.finishDownload). */
export const filesMissing = (outputs: readonly { path: string | null; sha256: string | null }[]): number => outputs.filter((o) => !o.path || !o.sha256).length;

/** The links of a job's items made (an HTML ad per style), each at its item's place, whichever attempt made it (JobWrite.outputs `'items'`). */
export function linksOfItems(items: readonly { idx: number; state: string; url: string | null }[]): { urls: string[]; places: number[] } {
  const made = items.filter((item) => item.state === 'done' && item.url);
  return { urls: made.map((item) => item.url as string), places: made.map((item) => item.idx) };
}
