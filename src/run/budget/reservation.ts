import type { PlannedJob } from '../../plan/types.js';

/**
 * The credits to hold for a job before it is sent: its estimate's high end, so the cap holds if
 * no job costs more than its estimate says it can; null when nobody prices it (then, under a cap,
 * it is not sent: the budget gate refuses such a run before it starts). `share`: the part of the
 * job this attempt asks for (a retry of a partly failed job's failed items: run/submit/items-to-send.ts).
 */
export function reservationFor(job: PlannedJob, share = 1): number | null {
  const high = job.credits?.high;
  return high === undefined ? null : Math.round(high * share * 100) / 100;
}
