import { StateError } from '../errors.js';

/**
 * The life of one job in the state database. Every status is persisted, so a run killed at any
 * instant resumes from exactly where it was.
 *
 *   planned ──(budget reserved, intent committed BEFORE the POST)──▶ submitting
 *   submitting ──(2xx with a remote id, committed AFTER the POST)──▶ submitted
 *   submitting ──(400: the service refused the input; nothing was created)──▶ rejected
 *   submitting ──(account-level refusal, 429, or request provably never sent)──▶ planned
 *   submitting ──(no usable answer, or a crash found at start-up)──▶ in_doubt
 *   in_doubt ──(reconcile found the job the intent created)──▶ submitted
 *   in_doubt ──(reconcile proved nothing was created, or --resubmit-in-doubt)──▶ planned
 *   in_doubt ──(kind cannot be reconciled)──▶ in_doubt (held, reported, exit 5)
 *   in_doubt ──(`resolve --adopt` of a remote job that already failed / was rejected)──▶ failed | rejected
 *   submitted ──(read: pending / in_queue / running …)──▶ running
 *   submitted | running ──(read: finished, output URL present)──▶ done
 *   submitted | running ──(read: failed)──▶ failed
 *   submitted | running ──(read: rejected, e.g. at content review; charged what credits_used says)──▶ rejected
 *   done ──(every output downloaded, verified and its checksum committed)──▶ downloaded
 *   done ──(likewise, but some of its items failed: an HTML ad that did not fit)──▶ partly_failed
 *   downloaded | partly_failed ──(an output hook failed; its files stay)──▶ hook_failed
 *   hook_failed ──(`reelpipe retry --hooks` reruns the failed hooks)──▶ downloaded | partly_failed
 *   failed | rejected | partly_failed ──(`reelpipe retry`)──▶ planned
 *   failed | partly_failed ──(`retries`: the service failed it in this run, retries left)──▶ planned
 *     (never rejected, a job in doubt, or a failure for credits: see run/retry-failed.ts)
 *     (a partly failed job keeps its made items and their files: its next attempt asks only for the
 *     failed ones, and it is done once every item has been made by one of its attempts)
 *
 * Short cuts: a read-only lookup (music) goes planned → done without any POST, and planned →
 * rejected when its request cannot be built (an upstream result lacks the field); a kind that
 * finishes at creation (links, deletions) goes submitting → done on its answer; a reconciled one
 * may go in_doubt → done; and downloaded (or hook_failed, partly_failed) → done when a later run finds an output
 * file missing or altered on disk, so it is fetched again (never resubmitted).
 *
 * `downloaded` is the one successful end: a kind without files (a link, a deletion) passes
 * through `done` to `downloaded` at once. `hook_failed` is a `downloaded` job whose manifest
 * `on_output` hook failed for one of its files (src/run/hooks/): made, paid and on disk, never
 * resubmitted, but not done until its hook succeeds (the run exits 1, like a failed job). Finished rows are never deleted: they are how a later
 * run knows not to redo (and not to pay for) a job again.
 */
export const JOB_STATUSES = [
  'planned',
  'submitting',
  'in_doubt',
  'submitted',
  'running',
  'done',
  'downloaded',
  'hook_failed',
  'partly_failed',
  'failed',
  'rejected',
] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** Every status but `planned`, as SQL literals: `status IN (…)` goes through a (manifest, status) index, where `<> 'planned'` does not. */
export const PAST_PLANNED = JOB_STATUSES.filter((status) => status !== 'planned').map((status) => `'${status}'`).join(', ');

/**
 * A status as one byte, for what keeps a status per job in a typed array (a run's progress, its
 * drive): 1 + its index in JOB_STATUSES; 0 for none (not recorded yet).
 */
export const statusCode = (status: JobStatus | null | undefined): number => (status ? JOB_STATUSES.indexOf(status) + 1 : 0);
/** The status a statusCode stands for; undefined for 0. */
export const statusOfCode = (code: number): JobStatus | undefined => (code === 0 ? undefined : JOB_STATUSES[code - 1]);

const TRANSITIONS: Record<JobStatus, readonly JobStatus[]> = {
  planned: ['submitting', 'done', 'rejected'],
  submitting: ['submitted', 'rejected', 'planned', 'in_doubt', 'done'],
  in_doubt: ['submitted', 'planned', 'in_doubt', 'done', 'failed', 'rejected'],
  submitted: ['running', 'done', 'failed', 'rejected', 'submitted'],
  running: ['running', 'done', 'failed', 'rejected'],
  done: ['downloaded', 'partly_failed', 'done'],
  downloaded: ['done', 'hook_failed'],
  hook_failed: ['downloaded', 'partly_failed', 'done'],
  partly_failed: ['planned', 'done', 'hook_failed', 'partly_failed'],
  failed: ['planned'],
  rejected: ['planned'],
};

/** Whether `from → to` is a move the machine above allows. */
export function canTransition(from: JobStatus, to: JobStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

/** Throws StateError on a move the machine does not allow: it would be a bug, not bad input. */
export function assertTransition(key: string, from: JobStatus, to: JobStatus): void {
  if (!canTransition(from, to)) {
    throw new StateError(`job ${key}: illegal status change ${from} → ${to}`);
  }
}

/** Statuses in which the job exists remotely (or may) and is not yet finished. */
export const IN_FLIGHT: readonly JobStatus[] = ['submitting', 'submitted', 'running', 'done'];
/** Statuses a later run never submits again. */
export const SETTLED: readonly JobStatus[] = ['downloaded', 'hook_failed', 'partly_failed', 'failed', 'rejected'];

export function isJobStatus(value: string): value is JobStatus {
  return (JOB_STATUSES as readonly string[]).includes(value);
}
