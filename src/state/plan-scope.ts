/** A job of the plan, as the readers are told of it: its key and the place it fills. */
export type PlanJob = { key: string; step: string; outputName: string | null };

/** A job's place among its step's outputs (step, output name): two jobs in one place are versions of one row. */
export const slotOf = (step: string, outputName: string | null): string => `${step}\u0000${outputName ?? ''}`;

/** What a view knows of the plan it shows: its job keys, and the places (step, output name) they fill. */
export interface PlanScope {
  keys: ReadonlySet<string>;
  slots: ReadonlySet<string>;
}

/**
 * The places are made when first asked for: only a job outside the plan is looked up in them (an
 * earlier version, a charge of one), and a report of 100,000 jobs that has none is spared making
 * 100,000 strings.
 */
export function planScope(jobs: Iterable<PlanJob>): PlanScope {
  const listed = Array.isArray(jobs) ? (jobs as readonly PlanJob[]) : [...jobs];
  const keys = new Set<string>();
  for (const job of listed) keys.add(job.key);
  let slots: Set<string> | undefined;
  return {
    keys,
    get slots() {
      return (slots ??= new Set(listed.map((job) => slotOf(job.step, job.outputName))));
    },
  };
}
