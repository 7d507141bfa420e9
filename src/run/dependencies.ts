import { scopedJobs } from '../plan/job-index.js';
import type { PlanIndex } from '../plan/plan-index.js';
import type { Plan } from '../plan/types.js';

/**
 * What each job waits for before it may be submitted: the jobs its references bind to, and every
 * job of the steps it `needs`; a job that waits for none is left out (read `get(key) ?? []`).
 * Linear in the plan: each step's key list is built once and shared; only the steps some step
 * needs have one (from the plan's index when it has one), and a plan whose steps need none is not
 * read at all. For the views that say why a job waits (standing.ts); a run waits through upstreams.ts.
 */
export function dependencies(plan: Pick<Plan, 'jobs' | 'steps'> & { index?: PlanIndex }): Map<string, readonly string[]> {
  const out = new Map<string, readonly string[]>();
  const needsOf = new Map(plan.steps.map((s) => [s.id, s.needs]));
  // A job with references is of a step that needs the steps they read (ManifestStep.needs).
  if (plan.steps.every((step) => step.needs.length === 0)) return out;
  const needed = new Set(plan.steps.flatMap((step) => step.needs));
  const byStep = new Map<string, string[]>();
  for (const { key, step } of scopedJobs(plan)) {
    if (!needed.has(step)) continue;
    const keys = byStep.get(step);
    if (keys) keys.push(key);
    else byStep.set(step, [key]);
  }
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
