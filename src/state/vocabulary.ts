import type { JobStatus } from './job-status.js';

/**
 * The one vocabulary for a job's state: the words `plan`, the run summary, `status`, the report
 * and results.csv all use, each defined once here (docs/report.md prints this table). The state
 * database keeps its own status names (src/state/job-status.ts); `--json` outputs carry both,
 * `state` (the word) and `dbStatus` (the database's name, null for a job it has never recorded).
 */
export const STATE_WORDS = [
  'not submitted',
  'changed',
  'submitting',
  'in doubt',
  'submitted',
  'running',
  'finished',
  'done',
  'hook failed',
  'partly failed',
  'failed',
  'rejected',
] as const;
export type StateWord = (typeof STATE_WORDS)[number];

export interface StateEntry {
  /** The database statuses shown as this word; `none` for a job the database has not recorded. */
  statuses: readonly (JobStatus | 'none')[];
  meaning: string;
  /** What happens next, or what a person should do. */
  next: string;
}

export const VOCABULARY: Record<StateWord, StateEntry> = {
  'not submitted': {
    statuses: ['none', 'planned'],
    meaning: 'nothing has been sent for this job yet',
    next: 'the next run submits it',
  },
  changed: {
    statuses: ['none'],
    meaning: 'not submitted, and a job of the same step and output name exists under another key: its inputs changed',
    next: 'the next run submits it as a new job (and pays for it); what the old job cost stays counted (as spent on an earlier version) and its files move to STEP/superseded/ as the new ones come',
  },
  submitting: {
    statuses: ['submitting'],
    meaning: 'the request is being sent; its answer is not recorded yet',
    next: 'a run that finds it so at start-up puts it in doubt (an earlier run died mid-request)',
  },
  'in doubt': {
    statuses: ['in_doubt'],
    meaning: 'it may exist at the service (the answer to its request was lost) and could not be matched',
    next: 'never resent by itself: see docs/exactly-once.md, or rerun with --resubmit-in-doubt to accept paying twice',
  },
  submitted: {
    statuses: ['submitted'],
    meaning: 'the service accepted it and it is waiting to start',
    next: 'the run follows it; a stopped run picks it up again',
  },
  running: {
    statuses: ['running'],
    meaning: 'the service is making it',
    next: 'the run follows it; a stopped run picks it up again',
  },
  finished: {
    statuses: ['done'],
    meaning: 'finished at the service; its files are not all downloaded yet',
    next: 'the next run downloads them (never resubmits)',
  },
  done: {
    statuses: ['downloaded'],
    meaning: 'finished, and every file downloaded and verified (a job without files: finished)',
    next: 'nothing: a later run never redoes or pays for it again',
  },
  'hook failed': {
    statuses: ['hook_failed'],
    meaning: "finished and every file downloaded, but the manifest's on_output hook failed for one of them (the files stay)",
    next: 'read the hook\'s exit code and output tail in reelpipe status, fix the cause, then reelpipe retry MANIFEST --hooks reruns only the failed hooks',
  },
  'partly failed': {
    statuses: ['partly_failed'],
    meaning: 'finished, but some of its items failed (an HTML ad that did not fit within max_size_mb): the made ones are on disk and paid for, each failed one named with its reason and refunded',
    next: 'reelpipe retry MANIFEST sends a new attempt of the same job asking only for the failed items (and pays only for them)',
  },
  failed: {
    statuses: ['failed'],
    meaning: 'the service could not make it, and gave a reason',
    next: 'reelpipe retry MANIFEST resubmits it as a new job',
  },
  rejected: {
    statuses: ['rejected'],
    meaning: 'the service refused it: at submission (nothing was made or charged) or at its review (charged what the service reports, often nothing)',
    next: 'fix the input the reason names, then reelpipe retry MANIFEST',
  },
};

const WORD_OF: Record<JobStatus, StateWord> = {
  planned: 'not submitted',
  submitting: 'submitting',
  in_doubt: 'in doubt',
  submitted: 'submitted',
  running: 'running',
  done: 'finished',
  downloaded: 'done',
  hook_failed: 'hook failed',
  partly_failed: 'partly failed',
  failed: 'failed',
  rejected: 'rejected',
};

/** The word for a database status; a job the database has not recorded is `not submitted` (or `changed`). */
export function stateWord(status: JobStatus | null | undefined, changed = false): StateWord {
  if (status === null || status === undefined) return changed ? 'changed' : 'not submitted';
  return WORD_OF[status];
}

/** Words that need a person: listed with their reason in the summary and the report. */
export const NEEDS_ATTENTION: readonly StateWord[] = ['failed', 'partly failed', 'rejected', 'in doubt', 'hook failed'];

/** `3 done, 1 failed`: counts in vocabulary order, zeros left out. */
export function countsText(counts: Partial<Record<StateWord, number>>): string {
  return STATE_WORDS.filter((w) => counts[w]).map((w) => `${counts[w]} ${w}`).join(', ');
}

/** Counts per word of a list of words. */
export function countWords(words: Iterable<StateWord>): Partial<Record<StateWord, number>> {
  const counts: Partial<Record<StateWord, number>> = {};
  for (const word of words) counts[word] = (counts[word] ?? 0) + 1;
  return counts;
}

/** Counts per word of counts per database status (a run's result). */
export function wordCountsOf(counts: Partial<Record<JobStatus, number>>): Partial<Record<StateWord, number>> {
  const words: Partial<Record<StateWord, number>> = {};
  for (const [status, n] of Object.entries(counts) as [JobStatus, number][]) {
    const word = stateWord(status);
    words[word] = (words[word] ?? 0) + n;
  }
  return words;
}
