import type { PlannedJob } from '../../plan/types.js';

/**
 * The credits to hold for a job before it is sent: its estimate's high end, so the cap holds if
 * no job costs more than its estimate says it can; null when nobody prices it (then, under a cap,
 * it is not sent: the budget gate refuses such a run before it starts).
 */
export function reservationFor(job: PlannedJob): number | null {
  return job.credits?.high ?? null;
}
