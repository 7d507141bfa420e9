/** A job of the plan, as the readers are told of it: its key and the place it fills. */
export type PlanJob = { key: string; step: string; outputName: string | null };

/** A job's place among its step's outputs (step, output name): two jobs in one place are versions of one row. */
export const slotOf = (step: string, outputName: string | null): string => `${step}\u0000${outputName ?? ''}`;

/** What a view knows of the plan it shows: its job keys, and the places (step, output name) they fill. */
export interface PlanScope {
  keys: ReadonlySet<string>;
  slots: ReadonlySet<string>;
}

export function planScope(jobs: Iterable<PlanJob>): PlanScope {
  const keys = new Set<string>();
  const slots = new Set<string>();
  for (const job of jobs) {
    keys.add(job.key);
    slots.add(slotOf(job.step, job.outputName));
  }
  return { keys, slots };
}
