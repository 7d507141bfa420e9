import { NEW, type StatusOf } from './render-table.js';
import type { Plan } from './types.js';

/** `reelpipe plan --json`: the whole plan, each job with its status from the run state. */
export function planToJson(plan: Plan, statusOf?: StatusOf): object {
  return {
    name: plan.name,
    manifest: plan.manifestPath,
    outputsDir: plan.outputsDir,
    concurrency: plan.concurrency,
    kindConcurrency: plan.kindConcurrency,
    budget: plan.budget,
    steps: plan.steps,
    jobs: plan.jobs.map((job) => ({
      key: job.key,
      step: job.step,
      kind: job.kind,
      ...(job.mode ? { mode: job.mode } : {}),
      status: statusOf?.(job.key) ?? NEW,
      credits: job.credits,
      outputName: job.outputName,
      download: job.download,
      ...(job.origin ? { origin: job.origin } : {}),
      ...(job.pathId !== undefined ? { pathId: job.pathId } : {}),
      refs: job.refs,
      request: job.request,
    })),
    totals: plan.totals,
    duplicates: plan.duplicates,
    warnings: plan.warnings,
  };
}
