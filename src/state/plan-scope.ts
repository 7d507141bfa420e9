/** A job of the plan, as the readers are told of it: its key and the place it fills. */
export type PlanJob = { key: string; step: string; outputName: string | null };

/**
 * The plan's jobs as the readers are told of them: as many passes as asked, how many there are,
 * and — from a streamed plan (plan/plan-index.ts) — a lookup of a key that spares the readers a set
 * of every key.
 */
export interface PlanJobs extends Iterable<PlanJob> {
  readonly length: number;
  has?(key: string): boolean;
  /** The place of the job of `key` in the plan (0 for the first), undefined when the plan has none. */
  ordinal?(key: string): number | undefined;
}

/** A job's place among its step's outputs (step, output name): two jobs in one place are versions of one row. */
export const slotOf = (step: string, outputName: string | null): string => `${step}\u0000${outputName ?? ''}`;

/** What a view knows of the plan it shows: its job keys, and the places (step, output name) they fill. */
export interface PlanScope {
  keys: { has(key: string): boolean; readonly size: number };
  slots: ReadonlySet<string>;
  /** A job's place in the plan, when the plan can tell it (money-sums.ts keeps each job's figure by it). */
  place?: (key: string) => number | undefined;
}

/**
 * The places are made when first asked for: only a job outside the plan is looked up in them (an
 * earlier version, a charge of one), and a report of 100,000 jobs that has none is spared making
 * 100,000 strings.
 */
export function planScope(jobs: PlanJobs): PlanScope {
  const keys = jobs.has ? { has: (key: string) => jobs.has!(key), size: jobs.length } : keySet(jobs);
  let slots: Set<string> | undefined;
  return {
    keys,
    ...(jobs.ordinal ? { place: (key: string) => jobs.ordinal!(key) } : {}),
    get slots() {
      if (!slots) {
        slots = new Set<string>();
        for (const job of jobs) slots.add(slotOf(job.step, job.outputName));
      }
      return slots;
    },
  };
}

function keySet(jobs: Iterable<PlanJob>): Set<string> {
  const keys = new Set<string>();
  for (const job of jobs) keys.add(job.key);
  return keys;
}
