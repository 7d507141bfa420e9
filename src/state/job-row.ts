import type { StepKind } from '../step-kinds.js';
import type { JobStatus } from './job-status.js';

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
  result: string | null;
  failed_reason: string | null;
  doubt_reason: string | null;
  attempt_count: number;
  created_at: number;
  updated_at: number;
  submitted_at: number | null;
  finished_at: number | null;
}

export function toJobRow(raw: RawJobRow): JobRow {
  return {
    key: raw.key,
    manifest: raw.manifest,
    step: raw.step,
    kind: raw.kind as StepKind,
    outputName: raw.output_name,
    request: JSON.parse(raw.request) as Record<string, unknown>,
    pathId: raw.path_id,
    remoteId: raw.remote_id,
    status: raw.status as JobStatus,
    remoteStatus: raw.remote_status,
    creditsEstimated: raw.credits_estimated,
    creditsReserved: raw.credits_reserved,
    creditsUsed: raw.credits_used,
    creditsPrior: raw.credits_prior,
    result: raw.result === null ? null : (JSON.parse(raw.result) as Record<string, unknown>),
    failedReason: raw.failed_reason,
    doubtReason: raw.doubt_reason ?? null,
    attemptCount: raw.attempt_count,
    createdAt: raw.created_at,
    updatedAt: raw.updated_at,
    submittedAt: raw.submitted_at,
    finishedAt: raw.finished_at,
  };
}

/** The states an attempt (one POST of one job) goes through; see docs/exactly-once.md. */
export type AttemptState = 'intent' | 'answered' | 'rejected' | 'not_sent' | 'in_doubt' | 'matched' | 'absent';

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
}

export interface OutputRow {
  jobKey: string;
  idx: number;
  url: string;
  path: string | null;
  bytes: number | null;
  sha256: string | null;
  contentType: string | null;
  downloadedAt: number | null;
}
