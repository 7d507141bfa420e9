import type { PlanIndex } from './plan-index.js';
import type { PlanJobs as ScopedJobs } from '../state/plan-scope.js';
import type { PlanJobs, PlannedJob } from './types.js';

/** A plan's jobs by key: each job, and its place in the plan (0 for the first). */
export interface JobIndex<J> {
  get(key: string): J | undefined;
  ordinal(key: string): number | undefined;
}

const indexes = new WeakMap<object, JobIndex<unknown>>();
/** The jobs a run holds of a streamed plan (run/job-window.ts), by plan: what a lookup by key answers from while the plan is run. */
const windows = new WeakMap<object, { get(key: string): unknown }>();

/**
 * While a run drives a streamed plan, a job looked up by key (its label, for a progress line or
 * a log line) is answered from the jobs the run holds — never by making every job of the plan.
 */
export function attachWindow(plan: object, window: { get(key: string): unknown }): void {
  windows.set(plan, window);
}

/**
 * A plan's jobs by key, made once per plan and shared by everyone who looks a job up by its key
 * (the runner, its progress, its log). Why one: each reader kept its own map of every key — at
 * 100,000 jobs, each a hash table of 100,000 entries held for the whole run. It maps a key to its
 * place only (a number, no object per job), so what is kept per job elsewhere can be a slot of a
 * typed array (progress/tally.ts). The plan's job list must not change once indexed.
 *
 * A streamed plan (plan-manifest.ts planStream) answers places from its own compact index; a job
 * asked for by key is the run's (attachWindow) while one runs it, else its jobs are listed (made
 * and held) once, for the commands that read them all anyway.
 */
export function jobIndex<J extends { key: string }>(plan: { readonly jobs: Iterable<J> & { length: number }; readonly index?: PlanIndex }): JobIndex<J> {
  let index = indexes.get(plan) as JobIndex<J> | undefined;
  if (!index) {
    index = plan.index ? streamedIndex(plan, plan.index, plan.jobs) : listIndex(listOf(plan.jobs));
    indexes.set(plan, index);
  }
  return index;
}

function listIndex<J extends { key: string }>(jobs: readonly J[]): JobIndex<J> {
  const places = new Map<string, number>();
  jobs.forEach((job, i) => places.set(job.key, i));
  return {
    get: (key) => {
      const i = places.get(key);
      return i === undefined ? undefined : jobs[i];
    },
    ordinal: (key) => places.get(key),
  };
}

function streamedIndex<J extends { key: string }>(plan: object, index: PlanIndex, jobs: Iterable<J>): JobIndex<J> {
  let listed: readonly J[] | undefined;
  return {
    get: (key) => {
      const window = windows.get(plan);
      if (window) return window.get(key) as J | undefined;
      const i = index.ordinal(key);
      return i === undefined ? undefined : (listed ??= [...jobs])[i];
    },
    ordinal: (key) => index.ordinal(key),
  };
}

/** The jobs as a list: the plan's own when it holds one, else made in one pass. */
export const listOf = <J>(jobs: Iterable<J>): readonly J[] => (Array.isArray(jobs) ? (jobs as readonly J[]) : [...jobs]);

/** The first job `test` takes, in plan order (one pass, stopped there). */
export function findJob(jobs: PlanJobs, test: (job: PlannedJob) => boolean): PlannedJob | undefined {
  for (const job of jobs) if (test(job)) return job;
  return undefined;
}

/** Every job `test` takes, in plan order. */
export function jobsWhere(jobs: PlanJobs, test: (job: PlannedJob) => boolean): PlannedJob[] {
  const out: PlannedJob[] = [];
  for (const job of jobs) if (test(job)) out.push(job);
  return out;
}

/** Each streamed plan's scoped jobs, made once: the state's read memo knows a plan's jobs by identity. */
const SCOPED = new WeakMap<PlanIndex, ScopedJobs>();

/**
 * The plan's jobs as the state's readers are told of them (key, step, output name): from a streamed
 * plan, read from its index (no job made, and a key looked up there); else its jobs. The same
 * object for the same plan, so a run's start and end ask the state for the same jobs' money.
 */
export function scopedJobs(plan: { readonly jobs: PlanJobs; readonly index?: PlanIndex }): ScopedJobs {
  const { index } = plan;
  if (!index) return plan.jobs;
  let scoped = SCOPED.get(index);
  if (!scoped) SCOPED.set(index, (scoped = scopedByIndex(index)));
  return scoped;
}

function scopedByIndex(index: PlanIndex): ScopedJobs {
  return {
    length: index.size,
    has: (key) => index.ordinal(key) !== undefined,
    ordinal: (key) => index.ordinal(key),
    *[Symbol.iterator]() {
      for (let place = 0; place < index.size; place++) yield { key: index.key(place), step: index.step(place), outputName: index.outputName(place) };
    },
  };
}

/** The plan's keys, in plan order (from its index when it has one: no job made). */
export function* keysOf(plan: { readonly jobs: PlanJobs; readonly index?: PlanIndex }): Generator<string> {
  if (plan.index) yield* plan.index.eachKey();
  else for (const job of plan.jobs) yield job.key;
}

/** The plan with its jobs held as a list: itself when it holds one. */
export function listed<P extends { readonly jobs: PlanJobs }>(plan: P): P & { jobs: PlannedJob[] } {
  return Array.isArray(plan.jobs) ? (plan as P & { jobs: PlannedJob[] }) : { ...plan, jobs: [...plan.jobs] };
}
