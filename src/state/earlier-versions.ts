import { slotOf, type PlanJob, type PlanScope } from './plan-scope.js';

/** A job's key and place, as the manifest's rows are read for its earlier versions (created_at, then key). */
export type SlotValues = [key: string, step: string, outputName: string | null];

/**
 * The earlier versions of each job of a plan: the manifest's jobs outside the plan in the same
 * place (step and output name) — the jobs of a row before it was edited — by the plan's job key,
 * in the order of `rows` (oldest first). Their files were kept in STEP/superseded/
 * (run/outputs/superseded-files.ts).
 */
export function earlierVersions(rows: Iterable<SlotValues>, scope: PlanScope, planJobs: Iterable<PlanJob>): Map<string, string[]> {
  const bySlot = new Map<string, string[]>();
  for (const [key, step, name] of rows) {
    if (scope.keys.has(key)) continue;
    const slot = slotOf(step, name);
    if (!scope.slots.has(slot)) continue;
    const list = bySlot.get(slot);
    if (list) list.push(key);
    else bySlot.set(slot, [key]);
  }
  const history = new Map<string, string[]>();
  if (bySlot.size === 0) return history;
  for (const job of planJobs) {
    const earlier = bySlot.get(slotOf(job.step, job.outputName));
    if (earlier) history.set(job.key, earlier);
  }
  return history;
}

/** The newest earlier version of each job that has one (`earlier`), with its request as `requestOf` finds it (JSON). */
export function earlierRequests(earlier: Map<string, string[]>, requestOf: (key: string) => string | undefined): Map<string, { key: string; request: Record<string, unknown> }> {
  const out = new Map<string, { key: string; request: Record<string, unknown> }>();
  for (const [key, versions] of earlier) {
    const last = versions.at(-1);
    const request = last === undefined ? undefined : requestOf(last);
    if (last !== undefined && request !== undefined) out.set(key, { key: last, request: JSON.parse(request) as Record<string, unknown> });
  }
  return out;
}

/** The newest earlier version of each job, by the plan's job key: whose requests earlierRequests wants. */
export const newestEarlier = (earlier: Map<string, string[]>): string[] => [...earlier.values()].flatMap((versions) => versions.slice(-1));
