import { NEW, type StatusOf } from './render-table.js';
import type { Plan, PlannedJob } from './types.js';

/** `reelpipe plan --json`: the whole plan, each job with its status from the run state. */
export function planToJson(plan: Plan, statusOf?: StatusOf): object {
  return { ...head(plan), jobs: plan.jobs.map((job) => jobJson(job, statusOf)), ...tail(plan) };
}

/** Why a size: big enough that 100,000 jobs are a few hundred writes, small enough to stay flat. */
const CHUNK_CHARS = 64 * 1024;

/**
 * The text of `JSON.stringify(planToJson(plan), null, 2)` and a newline, in chunks, one job at a
 * time: a 100,000-job plan never exists as one string (nor as a second copy of every job).
 */
export function* planJsonChunks(plan: Plan, statusOf?: StatusOf): Generator<string> {
  // The head without its closing "\n}", then the jobs, then the tail without its opening "{".
  let buffer = `${JSON.stringify(head(plan), null, 2).slice(0, -2)},\n  "jobs": [`;
  for (let i = 0; i < plan.jobs.length; i++) {
    const job = JSON.stringify(jobJson(plan.jobs[i] as PlannedJob, statusOf), null, 2);
    buffer += `${i === 0 ? '' : ','}\n    ${job.replaceAll('\n', '\n    ')}`;
    if (buffer.length >= CHUNK_CHARS) {
      yield buffer;
      buffer = '';
    }
  }
  yield `${buffer}${plan.jobs.length === 0 ? ']' : '\n  ]'},${JSON.stringify(tail(plan), null, 2).slice(1)}\n`;
}

const head = (plan: Plan) => ({
  name: plan.name,
  manifest: plan.manifestPath,
  outputsDir: plan.outputsDir,
  concurrency: plan.concurrency,
  kindConcurrency: plan.kindConcurrency,
  budget: plan.budget,
  steps: plan.steps,
});

const tail = (plan: Plan) => ({ totals: plan.totals, duplicates: plan.duplicates, warnings: plan.warnings });

function jobJson(job: PlannedJob, statusOf?: StatusOf): object {
  return {
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
  };
}
