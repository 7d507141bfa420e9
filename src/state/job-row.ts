import type { StepKind } from '../step-kinds.js';
import type { JobStatus } from './job-status.js';

/**
 * The rows the state answers with, whatever store holds them (src/state/store.ts): a job, a job
 * without its two large columns, an attempt (one POST), an output file.
 */

/** A job as the state database holds it. */
export interface JobRow {
  key: string;
  manifest: string;
  step: string;
  kind: StepKind;
  outputName: string | null;
  /** The planned request; once an intent is committed, the resolved request that was sent. */
  request: Record<string, unknown>;
  pathId: string | null;
  remoteId: string | null;
  status: JobStatus;
  remoteStatus: string | null;
  creditsEstimated: number | null;
  creditsReserved: number;
  creditsUsed: number | null;
  /** Credits spent by earlier attempts that failed before `reelpipe retry` planned the job again. */
  creditsPrior: number;
  /** The last read of the remote resource: outputs and the fields dependents take. */
  result: Record<string, unknown> | null;
  failedReason: string | null;
  /** Why the job is in doubt (the lost answer, the error, why it cannot be reconciled); null otherwise. */
  doubtReason: string | null;
  attemptCount: number;
  createdAt: number;
  updatedAt: number;
  submittedAt: number | null;
  finishedAt: number | null;
}

/** A job without its request and answer: what counts, summaries and the run's end read. */
export type JobState = Omit<JobRow, 'request' | 'result'>;

/** The states an attempt (one POST of one job) goes through; see docs/exactly-once.md. */
export type AttemptState = 'intent' | 'answered' | 'rejected' | 'not_sent' | 'in_doubt' | 'matched' | 'absent';

/** An attempt as the store answers it. */
export interface AttemptRow {
  id: number;
  jobKey: string;
  runId: number | null;
  state: AttemptState;
  request: Record<string, unknown>;
  intentAt: number;
  answeredAt: number | null;
  remoteId: string | null;
  error: string | null;
  /** The token of this attempt's webhook address, when the run listened for webhooks. */
  hookToken: string | null;
  /** The remote id a webhook delivery to that address named (the service's word on what it made). */
  deliveredId: string | null;
}

/** One output file of a job as recorded. */
export interface OutputRow {
  jobKey: string;
  idx: number;
  url: string;
  path: string | null;
  bytes: number | null;
  sha256: string | null;
  contentType: string | null;
  downloadedAt: number | null;
  /** The file's stat stamp (size, mtime, ctime) when its sha256 was last written or verified: see download/verify-file.ts. */
  statStamp: string | null;
}
