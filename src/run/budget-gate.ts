import { BudgetExceededError } from '../errors.js';
import type { Plan } from '../plan/types.js';
import { reservationFor } from './submit-job.js';

/**
 * Refuses, before the lock is taken and anything is sent, a run under a cap whose plan has jobs
 * of unknown cost. Policy: such a job could never be reserved at run time, so the run would stop
 * at the first of them after paying for others; the plan and the run must agree up front. The
 * message lists every step concerned, so the operator fixes them all at once.
 */
export function assertKnownCosts(plan: Plan, cap: number | null): void {
  if (cap === null) return;
  const unknown = new Map<string, { kind: string; jobs: number }>();
  for (const job of plan.jobs) {
    if (reservationFor(job) !== null) continue;
    const step = unknown.get(job.step) ?? { kind: job.kind, jobs: 0 };
    step.jobs++;
    unknown.set(job.step, step);
  }
  if (unknown.size === 0) return;
  const steps = [...unknown].map(([id, s]) => `${id} (${s.kind}, ${s.jobs} job${s.jobs === 1 ? '' : 's'})`);
  throw new BudgetExceededError(
    `a credit cap of ${cap} is set, but nobody prices these steps, so the cap could not be kept: ${steps.join(', ')}; ` +
      'give each of them estimate_credits: { low, expected, high } in the manifest, or run without a cap',
  );
}
