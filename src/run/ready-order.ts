/**
 * The one order in which ready jobs go next: **priority descending, then plan order**. A job is
 * ready when nothing it needs is unfinished; readiness is the caller's to decide (a higher-priority
 * job whose upstream is not finished still waits for it), this only says which of the ready ones
 * goes first.
 *
 * Pure and small on purpose: the runner's start order and its lanes (start-in-turns.ts) use it
 * today, and whatever else must pick "which job next" — claims of jobs across hosts, windows of a
 * streamed plan — is to reuse it rather than grow an order of its own.
 */

/** What the order looks at: a job's priority (`priority:` of its step, default 0) and its place in the plan. */
export interface ReadyRank {
  /** Higher goes first. `Infinity` goes before every priority (see SENT_FIRST in execute-plan.ts). */
  priority: number;
  /** Its place in the plan (or in the list given): lower goes first among equal priorities. */
  order: number;
}

/** Negative when `a` goes before `b`: higher priority first, then lower order. A comparator for sort and heaps. */
export function compareReady(a: ReadyRank, b: ReadyRank): number {
  if (a.priority !== b.priority) return a.priority > b.priority ? -1 : 1;
  return a.order - b.order;
}

/** `jobs` in ready order, each ranked by `priorityOf` and its place in `jobs` (a new array; stable). */
export function inReadyOrder<T>(jobs: readonly T[], priorityOf: (job: T) => number): T[] {
  const ranked = jobs.map((job, order) => ({ job, rank: { priority: priorityOf(job), order } }));
  ranked.sort((a, b) => compareReady(a.rank, b.rank));
  return ranked.map((r) => r.job);
}
