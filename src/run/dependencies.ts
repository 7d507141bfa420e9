import type { Plan } from '../plan/types.js';
import type { Deferred } from './deferred.js';
import type { JobOutcome } from './drive-job.js';

/**
 * What each job waits for before it may be submitted: the jobs its references bind to, and every
 * job of the steps it `needs`; a job that waits for none is left out (read `get(key) ?? []`).
 * Linear in the plan: each step's key list is built once and shared.
 */
export function dependencies(plan: Plan): Map<string, readonly string[]> {
  const byStep = new Map<string, string[]>();
  for (const job of plan.jobs) {
    const keys = byStep.get(job.step);
    if (keys) keys.push(job.key);
    else byStep.set(job.step, [job.key]);
  }
  const needsOf = new Map(plan.steps.map((s) => [s.id, s.needs]));
  const out = new Map<string, readonly string[]>();
  for (const job of plan.jobs) {
    const steps = needsOf.get(job.step) ?? [];
    // A job that waits for none has no entry (a map entry per job, held for the run, for nothing).
    if (job.refs.length === 0 && steps.length === 0) continue;
    if (job.refs.length === 0 && steps.length === 1) {
      out.set(job.key, byStep.get(steps[0]!) ?? []);
      continue;
    }
    const keys = new Set(job.refs.map((r) => r.jobKey));
    for (const step of steps) for (const key of byStep.get(step) ?? []) keys.add(key);
    out.set(job.key, [...keys]);
  }
  return out;
}

/** The settling of a job no other job needs: said to nobody. */
export const NEEDED_BY_NONE: Deferred<JobOutcome> = { promise: Promise.resolve('ok'), resolve: () => undefined };

/** Every job some other job waits for. Lists shared by a step's jobs (above) are read once. */
export function neededJobs(needs: Map<string, readonly string[]>): Set<string> {
  const lists = new Set(needs.values());
  const needed = new Set<string>();
  for (const list of lists) for (const key of list) needed.add(key);
  return needed;
}
