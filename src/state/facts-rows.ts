import type { AttemptRecord } from './attempt-records.js';
import { byJob } from './by-job.js';
import type { HookRunRow } from './hook-run-rows.js';
import type { JobItemRow } from './item-rows.js';
import type { JobState } from './job-row.js';
import type { JobStatus } from './job-status.js';
import type { MoneySums } from './money-sums.js';

/** One file of a job, as the state recorded its download. */
export interface RecordedOutput {
  /** Its place among the job's files (an item's place, for a job of items). */
  idx: number;
  /** Relative to the plan's outputs folder. */
  path: string;
  contentType: string | null;
  bytes: number | null;
  downloadedAt: number | null;
}

/**
 * What the facts are made from: a job's row, as the state has it (the run's JobState has these too).
 * Not its place (step, output name): only a key the state lacks needs the places (facts-places.ts),
 * and two strings fewer a row, with no place made of them, is ~0.1 s sooner at 100,000 jobs.
 */
export type FactsRow = Pick<JobState, 'key' | 'status' | 'remoteId' | 'creditsUsed' | 'failedReason' | 'doubtReason' | 'submittedAt' | 'finishedAt'>;

/** What a facts read reads besides the files, items and attempts it always reads. */
export interface FactsWanted {
  /** False only when the caller holds a row of every job of the plan (the reads count on it). */
  rows: boolean;
  money: boolean;
  /** A part of the facts only, for a reader that never holds every job's at once (the report): see FactsPart. @default every job's */
  part?: FactsPart;
}

/**
 * The report reads the facts a window of jobs at a time (report/write-report.ts says why), in two
 * kinds of read:
 *   - `outline`, first: no job's facts, but what the windows need of the whole manifest — the
 *     earlier versions of the plan's jobs and, when a job of the plan has no row, the places of
 *     the rows outside the plan (`earlier`, `slots`: facts-places.ts), its newest on_finish hook
 *     run (`lastFinish`) and, with `money`, its money;
 *   - `keys`, then, for each window: the rows, files, items, attempts and newest output hooks
 *     (`hooks`) of these jobs (and of their earlier versions), read by key. No places, no money:
 *     each job's own is the outline's (`money.byJob`).
 */
export type FactsPart = { outline: true } | { keys: readonly string[] };

/** Everything `status`, the report and `plan --json` read of a manifest's jobs, in a few queries. */
export interface FactsRead {
  /** The manifest's rows by key (null when the caller's own rows cover the plan). */
  rows: Map<string, FactsRow> | null;
  /**
   * The step and output name of every recorded row, when `rows` were read and a job of the plan has
   * none (null otherwise): a key the state lacks in a taken slot is `changed` (facts-places.ts). An
   * outline's are of the rows outside the plan alone (facts-places.ts outlinePlaces says why).
   */
  slots: Set<string> | null;
  outputs: Map<string, RecordedOutput[]>;
  /** Null when not wanted. */
  money: MoneySums | null;
  items: Map<string, JobItemRow[]>;
  earlier: Map<string, string[]>;
  attempts: Map<string, AttemptRecord[]>;
  /** A window's (`part.keys`): each job's newest on_output hook run per file, by job then file. */
  hooks?: Map<string, HookRunRow[]>;
  /** An outline's: the manifest's newest on_finish hook run (null when none ran). */
  lastFinish?: HookRunRow | null;
}

/** A FactsRow's columns of the jobs table, in the order FactsValues holds them. */
export const FACTS_COLUMNS = 'key, status, remote_id, credits_used, failed_reason, doubt_reason, submitted_at, finished_at';

export type FactsValues = [string, JobStatus, string | null, number | null, string | null, string | null, number | null, number | null];

/** A RecordedOutput's columns of the outputs table (its job's key first), in the order OutputValues holds them. */
export const RECORDED_OUTPUT_COLUMNS = 'job_key, idx, path, content_type, bytes, downloaded_at';

export type OutputValues = [jobKey: string, idx: number, path: string, contentType: string | null, bytes: number | null, downloadedAt: number | null];

/** A FactsRead of nothing but what `part` fills in: every map empty, no rows, places or money. */
export function emptyFacts(): FactsRead {
  return { rows: null, slots: null, outputs: new Map(), money: null, items: new Map(), earlier: new Map(), attempts: new Map() };
}

/** The rows by key, one row at a time: no 10,000 arrays are held at once. */
export function factsRowsOf(values: Iterable<FactsValues>): Map<string, FactsRow> {
  const rows = new Map<string, FactsRow>();
  for (const [key, status, remoteId, creditsUsed, failedReason, doubtReason, submittedAt, finishedAt] of values) {
    rows.set(key, { key, status, remoteId, creditsUsed, failedReason, doubtReason, submittedAt, finishedAt });
  }
  return rows;
}

/** Each job's recorded files, in the order read (by job, then place). */
export function recordedOutputsOf(values: Iterable<OutputValues>): Map<string, RecordedOutput[]> {
  return byJob(values, ([jobKey, idx, path, contentType, bytes, downloadedAt]) => [jobKey, { idx, path, contentType, bytes, downloadedAt }]);
}
