const indexes = new WeakMap<object, ReadonlyMap<string, unknown>>();

/**
 * A plan's jobs by key, made once per plan and shared by everyone who looks a job up by its key
 * (the runner, its progress, its log). Why one: each reader kept its own map of every key — at
 * 100,000 jobs, each a hash table of 100,000 entries held for the whole run.
 */
export function jobIndex<J extends { key: string }>(plan: { readonly jobs: readonly J[] }): ReadonlyMap<string, J> {
  let index = indexes.get(plan) as ReadonlyMap<string, J> | undefined;
  if (!index) {
    index = new Map(plan.jobs.map((job) => [job.key, job]));
    indexes.set(plan, index);
  }
  return index;
}
