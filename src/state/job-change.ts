import type { StepKind } from '../step-kinds.js';

/** A job of the plan, as the store first records it. */
export interface NewJob {
  key: string;
  step: string;
  kind: StepKind;
  outputName?: string | null;
  request: Record<string, unknown>;
  pathId?: string | null;
  creditsEstimated: number | null;
  /**
   * The items it is planned to make (a `style_ids: all` HTML ad job's styles) and the key of the
   * request it was expanded from, kept once it is sent: see migration 16.
   */
  plannedItems?: { from: string; items: readonly string[] } | null;
  /** Its step's priority (run/ready-order.ts). @default 0 */
  priority?: number;
  /**
   * The job as planned, whole (plan/planned-record.ts): what a run reads back to drive it, and its
   * digest — the record is written again only when the digest changed. @default none (a test's job)
   */
  planned?: { record: string; digest: string };
}

/** A job as planned, read back from the state (Store.plannedJobs): its columns and its record. */
export interface PlannedRecord {
  key: string;
  step: string;
  kind: StepKind;
  outputName: string | null;
  priority: number;
  /** The record syncPlan was given (NewJob.planned.record). */
  record: string;
}

/** Keys the plan has: a set, or a streamed plan's index. */
export interface KeySet {
  has(key: string): boolean;
}

/**
 * The plan's jobs as a run records them (syncPlan): one pass, in plan order, made as they are
 * read (a streamed plan holds none); how many; which keys and steps it has.
 */
export interface PlanFeed extends Iterable<NewJob> {
  readonly length: number;
  readonly keys: KeySet;
  readonly steps: ReadonlySet<string>;
}

/** A list of jobs as a feed (tests, and callers that hold their jobs). */
export function feedOf(jobs: readonly NewJob[] | PlanFeed): PlanFeed {
  if (!Array.isArray(jobs)) return jobs as PlanFeed;
  const list = jobs as readonly NewJob[];
  return { length: list.length, keys: new Set(list.map((job) => job.key)), steps: new Set(list.map((job) => job.step)), [Symbol.iterator]: () => list[Symbol.iterator]() };
}

/** Columns a status change may set alongside the status. */
export interface JobChange {
  remoteId?: string | null;
  remoteStatus?: string | null;
  result?: Record<string, unknown> | null;
  creditsUsed?: number | null;
  creditsPrior?: number;
  creditsReserved?: number;
  failedReason?: string | null;
  /** Set on entering in_doubt; cleared by `transition` on leaving it. */
  doubtReason?: string | null;
  request?: Record<string, unknown>;
  pathId?: string | null;
  submittedAt?: number | null;
  finishedAt?: number | null;
}
