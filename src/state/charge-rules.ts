import type { AttemptState } from './job-row.js';
import type { KeySet } from './job-change.js';
import { slotOf } from './plan-scope.js';

/**
 * The rules of the charges ledger that hold whatever store keeps it (sqlite/charges.ts tells a
 * charge's life; each store writes them in its own SQL).
 */

/** Attempts that provably created nothing at the service: their charge is none. */
export const CREATED_NOTHING: readonly AttemptState[] = ['not_sent', 'rejected', 'absent'];

/**
 * The manifest's jobs whose charges are superseded by the plan `keys` (of `steps`): outside the
 * plan, of one of its steps, in the place (step, output name) of a job of the plan — an edited
 * row's earlier job. Other steps' jobs are left as they are: a `--step` run plans only some steps.
 */
export function supersededJobs(jobs: Iterable<[key: string, step: string, outputName: string | null]>, keys: KeySet, steps: ReadonlySet<string>): string[] {
  const rows = [...jobs];
  const slots = new Set<string>();
  for (const [key, step, name] of rows) if (keys.has(key)) slots.add(slotOf(step, name));
  return rows.filter(([key, step, name]) => steps.has(step) && !keys.has(key) && slots.has(slotOf(step, name))).map(([key]) => key);
}
