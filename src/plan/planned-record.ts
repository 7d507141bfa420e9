import { hash } from 'node:crypto';
import type { NewJob, PlanFeed, PlannedRecord } from '../state/job-change.js';
import type { PlanIndex } from './plan-index.js';
import type { CreditEstimate, JobRef, Plan, PlannedJob, StepPlan } from './types.js';

/**
 * A job as planned, as the state keeps it (jobs.plan_job, migration 25): what a run reads back to
 * drive the jobs it claims, so it holds no job of its plan that it is not driving (issue 24). The
 * record carries what the job's columns do not: its request before any reference is resolved
 * (the column holds the one sent), its references, estimate, label, origin, row and matrix. Its
 * step's fields (mode, download) come from the plan's steps.
 */
interface Record {
  request: PlannedJob['request'];
  pathId?: string;
  refs?: JobRef[];
  credits: CreditEstimate | null;
  label: string;
  origin?: string;
  row?: PlannedJob['row'];
  matrix?: PlannedJob['matrix'];
  expandedFrom?: string;
}

/** The job as the state first records it, with its record as planned and that record's digest. */
export function toNewJob(job: PlannedJob): NewJob {
  const kept: Record = { request: job.request, credits: job.credits, label: job.label };
  if (job.pathId !== undefined) kept.pathId = job.pathId;
  if (job.refs.length > 0) kept.refs = job.refs;
  if (job.origin !== undefined) kept.origin = job.origin;
  if (job.row !== undefined) kept.row = job.row;
  if (job.matrix !== undefined) kept.matrix = job.matrix;
  if (job.expandedFrom !== undefined) kept.expandedFrom = job.expandedFrom;
  const record = JSON.stringify(kept);
  return {
    key: job.key,
    step: job.step,
    kind: job.kind,
    outputName: job.outputName,
    request: job.request,
    pathId: job.pathId ?? null,
    creditsEstimated: job.credits?.expected ?? null,
    plannedItems: job.expandedFrom && Array.isArray(job.request.style_ids) ? { from: job.expandedFrom, items: job.request.style_ids.map(String) } : null,
    priority: job.priority,
    planned: { record, digest: hash('sha256', record).slice(0, 16) },
  };
}

/** The plan's jobs as the state records them: made one at a time as the store reads them (a streamed plan's keys looked up in its index). */
export function planFeed(plan: Plan & { index?: PlanIndex }): PlanFeed {
  const { index } = plan;
  return {
    length: plan.jobs.length,
    keys: index ? { has: (key) => index.ordinal(key) !== undefined } : new Set(Array.from(plan.jobs, (job) => job.key)),
    steps: new Set(plan.steps.map((step) => step.id)),
    *[Symbol.iterator]() {
      for (const job of plan.jobs) yield toNewJob(job);
    },
  };
}

/** The job a record read back from the state stands for, whole again (its step's fields from `step`). */
export function fromRecord(row: PlannedRecord, step: Pick<StepPlan, 'mode' | 'download'> | undefined): PlannedJob {
  const kept = JSON.parse(row.record) as Record;
  const job: PlannedJob = {
    key: row.key, step: row.step, kind: row.kind, request: kept.request, refs: kept.refs ?? NO_REFS, credits: kept.credits, outputName: row.outputName ?? '',
    download: step?.download ?? true, label: kept.label, priority: row.priority,
  };
  if (step?.mode) job.mode = step.mode;
  if (kept.pathId !== undefined) job.pathId = kept.pathId;
  if (kept.origin !== undefined) job.origin = kept.origin;
  if (kept.row !== undefined) job.row = kept.row;
  if (kept.matrix !== undefined) job.matrix = kept.matrix;
  if (kept.expandedFrom !== undefined) job.expandedFrom = kept.expandedFrom;
  return job;
}

const NO_REFS: JobRef[] = [];
