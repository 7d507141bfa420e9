import type { KeySet } from './job-change.js';
import { CLAIMABLE } from './sqlite/claims.js';

/** A job as recorded, for the plan's marks: its status, and whether it is marked in the plan (in_plan). */
export interface MarkedJob {
  key: string;
  status: string;
  marked: boolean;
}

/**
 * The marks to write when a plan is recorded (syncPlan, both stores): a job that can be claimed is
 * marked in the plan if and only if it is of it. A planned job of the plan is marked by its upsert;
 * `entering` are the sent ones of the plan not marked yet, `leaving` the marked ones no longer in
 * it. A finished job's mark is left as it is: no claim reads it, and the next plan recorded sets
 * it before the job can be claimed again (`retry` plans it again before its run records the plan).
 * Only the claimable jobs' marks are asked for (`marked` of another is not read).
 */
export function planMarks(recorded: Iterable<MarkedJob>, keys: KeySet): { entering: string[]; leaving: string[] } {
  const entering: string[] = [];
  const leaving: string[] = [];
  for (const { key, status, marked } of recorded) {
    if (!CLAIMABLE.has(status)) continue;
    if (!marked && status !== 'planned' && keys.has(key)) entering.push(key);
    else if (marked && !keys.has(key)) leaving.push(key);
  }
  return { entering, leaving };
}
