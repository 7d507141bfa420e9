import { UsageError } from '../errors.js';
import { jobIndex, jobsWhere } from '../plan/job-index.js';
import { totalsOf } from '../plan/plan-manifest.js';
import type { ListedPlan, Plan } from '../plan/types.js';
import { dependencies } from './dependencies.js';

/** Statuses whose result a dependent job can be built from: finished at the service. */
const FINISHED = new Set(['done', 'downloaded', 'partly_failed']);

/**
 * `--step ID` (repeatable, on `plan` and `run`): the plan narrowed to the chosen steps' jobs, with
 * totals for them alone, so the budget gate, the summary and the exit code speak of the selection.
 *
 * Policy, a chosen job that needs a job of a step not chosen: that job must already be finished
 * (`done` or `downloaded` in the state database, `statusOf`), since its result is what the chosen
 * job is built from. Otherwise the selection is refused (exit 2) naming the steps to add. Why
 * refuse rather than pull those steps in: pulling them in would submit — and pay for — jobs the
 * operator did not name; the refusal costs nothing and says which `--step` flags to add.
 */
export function selectSteps(plan: Plan, ids: readonly string[], statusOf: (key: string) => string | undefined): ListedPlan {
  const known = new Set(plan.steps.map((s) => s.id));
  const unknown = ids.filter((id) => !known.has(id));
  if (unknown.length > 0) {
    throw new UsageError(`--step ${unknown.join(', ')}: no such step; the manifest's steps are ${[...known].join(', ')}`);
  }
  const chosen = new Set(ids);
  const places = jobIndex(plan);
  const stepOf = { get: (key: string) => places.get(key)?.step };
  const missing = new Map<string, Set<string>>();
  const needs = dependencies(plan);
  for (const job of plan.jobs) {
    if (!chosen.has(job.step)) continue;
    for (const upstream of needs.get(job.key) ?? []) {
      const step = stepOf.get(upstream);
      if (step === undefined || chosen.has(step) || FINISHED.has(statusOf(upstream) ?? '')) continue;
      missing.set(step, (missing.get(step) ?? new Set()).add(job.step));
    }
  }
  if (missing.size > 0) throw new UsageError(refusal(missing));
  const steps = plan.steps.filter((s) => chosen.has(s.id));
  const jobs = jobsWhere(plan.jobs, (j) => chosen.has(j.step));
  // Not the whole plan's index (a streamed plan's): its places are not the selection's.
  const { index: _index, ...whole } = plan as Plan & { index?: unknown };
  return { ...whole, steps, jobs, totals: totalsOf(steps), duplicates: plan.duplicates.filter((d) => chosen.has(d.step)) };
}

function refusal(missing: Map<string, Set<string>>): string {
  const lines = [...missing].map(([step, by]) => `step ${[...by].join(', ')} needs jobs of step ${step} that are not finished`);
  const add = [...missing.keys()].map((step) => `--step ${step}`).join(' ');
  return `${lines.join('; ')}: add ${add} to run ${missing.size === 1 ? 'it' : 'them'} too (nothing was submitted)`;
}
