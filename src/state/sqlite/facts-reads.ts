import type Database from 'better-sqlite3';
import type { JobState } from '../job-row.js';
import type { JobStatus } from '../job-status.js';
import { readAttemptsByJob, type AttemptRecord } from './attempt-history.js';
import { readEarlierVersions } from './job-history.js';
import { readItemsByJob, type JobItemRow } from './job-items.js';
import { planScope, readMoney, type MoneyTotals } from './money.js';
import { openStateDbCurrent } from './open-db.js';

/** One file of a job, as the state database recorded its download. */
export interface RecordedOutput {
  /** Its place among the job's files (an item's place, for a job of items). */
  idx: number;
  /** Relative to the plan's outputs folder. */
  path: string;
  contentType: string | null;
  bytes: number | null;
  downloadedAt: number | null;
}

/** What the facts are made from: a job's row, as the state database has it (the run's JobState has these too). */
export type FactsRow = Pick<JobState, 'key' | 'step' | 'outputName' | 'status' | 'remoteId' | 'creditsUsed' | 'failedReason' | 'doubtReason' | 'submittedAt' | 'finishedAt'>;

/** Everything `status`, the report and `plan --json` read of a manifest's jobs, in a few queries. */
export interface FactsRead {
  /** The manifest's rows by key (null when the caller's own rows cover the plan). */
  rows: Map<string, FactsRow> | null;
  /** The step and output name of every recorded row (null with `rows`): a key the database lacks in a taken slot is `changed`. */
  slots: Set<string> | null;
  outputs: Map<string, RecordedOutput[]>;
  money: { totals: MoneyTotals; byJob: Map<string, number | null> };
  items: Map<string, JobItemRow[]>;
  earlier: Map<string, string[]>;
  attempts: Map<string, AttemptRecord[]>;
}

type RowValues = [string, string, string | null, JobStatus, string | null, number | null, string | null, string | null, number | null, number | null];
type OutputValues = [jobKey: string, idx: number, path: string, contentType: string | null, bytes: number | null, downloadedAt: number | null];

const SELECT_JOBS = `SELECT key, step, output_name, status, remote_id, credits_used, failed_reason, doubt_reason,
  submitted_at, finished_at FROM jobs WHERE manifest = ?`;
const SELECT_OUTPUTS = `SELECT job_key, idx, path, content_type, bytes, downloaded_at FROM outputs
  WHERE manifest = ? AND path IS NOT NULL AND sha256 IS NOT NULL ORDER BY job_key, idx`;

/** The slot a job fills: its step and output name. */
export const slotOf = (step: string, name: string | null) => `${step}\u0000${name ?? ''}`;

/**
 * The facts of `manifest`'s jobs in the state at `dbPath`, read-only and without a lock (so it
 * works while a run is going); undefined when there is no database. `readRows`: whether its rows
 * are wanted (the caller may hold them already, read at a run's end).
 */
export function readFactsAt(dbPath: string, manifest: string, planJobs: readonly { key: string; step: string; outputName: string | null }[], readRows: boolean): FactsRead | undefined {
  const db = openStateDbCurrent(dbPath);
  if (!db) return undefined;
  try {
    const scope = planScope(planJobs);
    const { rows, slots } = readRows ? rowsOf(db, manifest) : { rows: null, slots: null };
    return {
      rows, slots, outputs: outputsByJob(db, manifest), money: readMoney(db, manifest, scope), items: readItemsByJob(db, manifest),
      earlier: readEarlierVersions(db, manifest, scope, planJobs), attempts: readAttemptsByJob(db, manifest),
    };
  } finally {
    db.close();
  }
}

/** Raw rows, one at a time, as the store reads job states: no 10,000 arrays are held at once. */
function rowsOf(db: Database.Database, manifest: string): { rows: Map<string, FactsRow>; slots: Set<string> } {
  const rows = new Map<string, FactsRow>();
  const slots = new Set<string>();
  for (const [key, step, outputName, status, remoteId, creditsUsed, failedReason, doubtReason, submittedAt, finishedAt] of db.prepare(SELECT_JOBS).raw().iterate(manifest) as Iterable<RowValues>) {
    rows.set(key, { key, step, outputName, status, remoteId, creditsUsed, failedReason, doubtReason, submittedAt, finishedAt });
    slots.add(slotOf(step, outputName));
  }
  return { rows, slots };
}

function outputsByJob(db: Database.Database, manifest: string): Map<string, RecordedOutput[]> {
  const byJob = new Map<string, RecordedOutput[]>();
  for (const [jobKey, idx, path, contentType, bytes, downloadedAt] of db.prepare(SELECT_OUTPUTS).raw().iterate(manifest) as Iterable<OutputValues>) {
    const list = byJob.get(jobKey) ?? [];
    if (list.length === 0) byJob.set(jobKey, list);
    list.push({ idx, path, contentType, bytes, downloadedAt });
  }
  return byJob;
}
