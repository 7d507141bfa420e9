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
