import type { StepKind } from '../../step-kinds.js';
import type { JobStatus } from '../job-status.js';
import type { AttemptRow, AttemptState, JobRow, JobState, OutputRow } from '../job-row.js';

export type { AttemptRow, AttemptState, JobRow, JobState, OutputRow } from '../job-row.js';

export interface RawJobRow {
  key: string;
  manifest: string;
  step: string;
  kind: string;
  output_name: string | null;
  request: string;
  path_id: string | null;
  remote_id: string | null;
  status: string;
  remote_status: string | null;
  credits_estimated: number | null;
  credits_reserved: number;
  credits_used: number | null;
  credits_prior: number;
  /** The job's last read (JOB_ROWS). */
  last_read: string | null;
  failed_reason: string | null;
  doubt_reason: string | null;
  attempt_count: number;
  created_at: number;
  updated_at: number;
  submitted_at: number | null;
  finished_at: number | null;
}

/**
 * Whole job rows: the jobs table's columns and the job's last read (`last_read`), which is kept
 * apart in job_results (migration 13: scans of the jobs table read only the small columns). Follow
 * with a WHERE on the jobs table.
 */
export const JOB_ROWS = `SELECT jobs.*, ${lastReadOf('jobs')} AS last_read FROM jobs`;

/**
 * The last read of the job in `table`'s row (null before one), as an SQL expression. jobs.result
 * is where a reelpipe from before migration 13 still running on the file writes it.
 */
export function lastReadOf(table: string): string {
  return `coalesce((SELECT result FROM job_results r WHERE r.manifest = ${table}.manifest AND r.job_key = ${table}.key), ${table}.result)`;
}

/**
 * The columns of a JobState (every column but request and result, and manifest: the reader is
 * scoped to one, and 10,000 copies of its path were 10,000 strings), in the order `stateFromValues` reads them.
 */
export const STATE_COLUMNS = `key, step, kind, output_name, path_id, remote_id, status, remote_status, credits_estimated,
  credits_reserved, credits_used, credits_prior, failed_reason, doubt_reason, attempt_count, created_at, updated_at, submitted_at, finished_at`;

type Values = [
  string, string, string, string | null, string | null, string | null, string, string | null, number | null,
  number, number | null, number, string | null, string | null, number, number, number, number | null, number | null,
];

/**
 * A JobState of `manifest` from a row read as an array of STATE_COLUMNS (a statement in raw mode).
 * Why arrays: better-sqlite3 builds a keyed object per row column by column, which cost three
 * times the query itself on a 10,000-job scan; one object literal of a fixed shape is built here instead.
 */
export function stateFromValues(values: unknown[], manifest: string): JobState {
  const [key, step, kind, outputName, pathId, remoteId, status, remoteStatus, creditsEstimated, creditsReserved, creditsUsed, creditsPrior,
    failedReason, doubtReason, attemptCount, createdAt, updatedAt, submittedAt, finishedAt] = values as Values;
  return {
    key, manifest, step, kind: kind as StepKind, outputName, pathId, remoteId, status: status as JobStatus, remoteStatus, creditsEstimated, creditsReserved,
    creditsUsed, creditsPrior, failedReason, doubtReason, attemptCount, createdAt, updatedAt, submittedAt, finishedAt,
  };
}

export function toJobState(raw: RawJobRow): JobState {
  return {
    key: raw.key,
    manifest: raw.manifest,
    step: raw.step,
    kind: raw.kind as StepKind,
    outputName: raw.output_name,
    pathId: raw.path_id,
    remoteId: raw.remote_id,
    status: raw.status as JobStatus,
    remoteStatus: raw.remote_status,
    creditsEstimated: raw.credits_estimated,
    creditsReserved: raw.credits_reserved,
    creditsUsed: raw.credits_used,
    creditsPrior: raw.credits_prior,
    failedReason: raw.failed_reason,
    doubtReason: raw.doubt_reason ?? null,
    attemptCount: raw.attempt_count,
    createdAt: raw.created_at,
    updatedAt: raw.updated_at,
    submittedAt: raw.submitted_at,
    finishedAt: raw.finished_at,
  };
}

/**
 * A row as the runner reads it. `request` and `result` (JSON, a few KB each) are parsed on first
 * use: most reads of a job want its status, and parsing both on every read was a tenth of a run's
 * work.
 */
export function toJobRow(raw: RawJobRow): JobRow {
  const row = toJobState(raw) as JobRow;
  return Object.defineProperties(row, {
    request: lazyJson('request', () => JSON.parse(raw.request) as Record<string, unknown>),
    result: lazyJson('result', () => (raw.last_read === null ? null : (JSON.parse(raw.last_read) as Record<string, unknown>))),
  });
}

/** An enumerable property parsed on first read, then kept (and writable, like a plain field). */
function lazyJson<T>(name: string, parse: () => T): PropertyDescriptor {
  let value: { v: T } | undefined;
  return {
    enumerable: true,
    configurable: true,
    get: () => (value ??= { v: parse() }).v,
    set(this: object, next: T) {
      Object.defineProperty(this, name, { value: next, writable: true, enumerable: true, configurable: true });
    },
  };
}

/** The columns of an OutputRow, in the order outputFromValues reads them (a statement in raw mode). */
export const OUTPUT_COLUMNS = 'job_key, idx, url, path, bytes, sha256, content_type, downloaded_at, stat_stamp';

/** An OutputRow from a row read as an array of OUTPUT_COLUMNS: one literal of a fixed shape, as stateFromValues. */
export function outputFromValues(values: unknown[]): OutputRow {
  const [jobKey, idx, url, path, bytes, sha256, contentType, downloadedAt, statStamp] = values as [
    string, number, string, string | null, number | null, string | null, string | null, number | null, string | null,
  ];
  return { jobKey, idx, url, path, bytes, sha256, contentType, downloadedAt, statStamp };
}

/** An attempts row as the runner reads it. */
export function toAttempt(raw: Record<string, unknown>): AttemptRow {
  return {
    id: raw.id as number,
    jobKey: raw.job_key as string,
    runId: raw.run_id as number | null,
    state: raw.state as AttemptState,
    request: JSON.parse(raw.request as string) as Record<string, unknown>,
    intentAt: raw.intent_at as number,
    answeredAt: raw.answered_at as number | null,
    remoteId: raw.remote_id as string | null,
    error: raw.error as string | null,
    hookToken: (raw.hook_token as string | null | undefined) ?? null,
    deliveredId: (raw.delivered_id as string | null | undefined) ?? null,
  };
}

