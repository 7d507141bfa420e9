/** A plan's jobs by key: each job, and its place in the plan (0 for the first). */
export interface JobIndex<J> {
  get(key: string): J | undefined;
  ordinal(key: string): number | undefined;
}

const indexes = new WeakMap<object, JobIndex<unknown>>();

/**
 * A plan's jobs by key, made once per plan and shared by everyone who looks a job up by its key
 * (the runner, its progress, its log). Why one: each reader kept its own map of every key — at
 * 100,000 jobs, each a hash table of 100,000 entries held for the whole run. It maps a key to its
 * place only (a number, no object per job), so what is kept per job elsewhere can be a slot of a
 * typed array (progress/tally.ts). The plan's job list must not change once indexed.
 */
export function jobIndex<J extends { key: string }>(plan: { readonly jobs: readonly J[] }): JobIndex<J> {
  let index = indexes.get(plan) as JobIndex<J> | undefined;
  if (!index) {
    const places = new Map<string, number>();
    plan.jobs.forEach((job, i) => places.set(job.key, i));
    const { jobs } = plan;
    index = {
      get: (key) => {
        const i = places.get(key);
        return i === undefined ? undefined : jobs[i];
      },
      ordinal: (key) => places.get(key),
    };
    indexes.set(plan, index);
  }
  return index;
}
