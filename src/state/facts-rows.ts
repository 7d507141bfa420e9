import type { AttemptRecord } from './attempt-records.js';
import { byJob } from './by-job.js';
import type { JobItemRow } from './item-rows.js';
import type { JobState } from './job-row.js';
import type { JobStatus } from './job-status.js';
import type { JobsMoney } from './money-sums.js';
import { slotOf } from './plan-scope.js';

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

/** What the facts are made from: a job's row, as the state has it (the run's JobState has these too). */
export type FactsRow = Pick<JobState, 'key' | 'step' | 'outputName' | 'status' | 'remoteId' | 'creditsUsed' | 'failedReason' | 'doubtReason' | 'submittedAt' | 'finishedAt'>;

/** What a facts read reads besides the files, items and attempts it always reads. */
export interface FactsWanted {
  rows: boolean;
  money: boolean;
}

/** Everything `status`, the report and `plan --json` read of a manifest's jobs, in a few queries. */
export interface FactsRead {
  /** The manifest's rows by key (null when the caller's own rows cover the plan). */
  rows: Map<string, FactsRow> | null;
  /** The step and output name of every recorded row (null with `rows`): a key the state lacks in a taken slot is `changed`. */
  slots: Set<string> | null;
  outputs: Map<string, RecordedOutput[]>;
  /** Null when not wanted. */
  money: JobsMoney | null;
  items: Map<string, JobItemRow[]>;
  earlier: Map<string, string[]>;
  attempts: Map<string, AttemptRecord[]>;
}

/** A FactsRow's columns of the jobs table, in the order FactsValues holds them. */
export const FACTS_COLUMNS = 'key, step, output_name, status, remote_id, credits_used, failed_reason, doubt_reason, submitted_at, finished_at';

export type FactsValues = [string, string, string | null, JobStatus, string | null, number | null, string | null, string | null, number | null, number | null];

/** A RecordedOutput's columns of the outputs table (its job's key first), in the order OutputValues holds them. */
export const RECORDED_OUTPUT_COLUMNS = 'job_key, idx, path, content_type, bytes, downloaded_at';

export type OutputValues = [jobKey: string, idx: number, path: string, contentType: string | null, bytes: number | null, downloadedAt: number | null];

/** The rows by key and the slots they fill, one row at a time: no 10,000 arrays are held at once. */
export function factsRowsOf(values: Iterable<FactsValues>): { rows: Map<string, FactsRow>; slots: Set<string> } {
  const rows = new Map<string, FactsRow>();
  const slots = new Set<string>();
  for (const [key, step, outputName, status, remoteId, creditsUsed, failedReason, doubtReason, submittedAt, finishedAt] of values) {
    rows.set(key, { key, step, outputName, status, remoteId, creditsUsed, failedReason, doubtReason, submittedAt, finishedAt });
    slots.add(slotOf(step, outputName));
  }
  return { rows, slots };
}

/** Each job's recorded files, in the order read (by job, then place). */
export function recordedOutputsOf(values: Iterable<OutputValues>): Map<string, RecordedOutput[]> {
  return byJob(values, ([jobKey, idx, path, contentType, bytes, downloadedAt]) => [jobKey, { idx, path, contentType, bytes, downloadedAt }]);
}
