import { earlierVersions, type SlotValues } from './earlier-versions.js';
import { slotOf, type PlanJob, type PlanScope } from './plan-scope.js';

/**
 * What a facts read (facts-rows.ts) wants of the places — step and output name — of the
 * manifest's rows, read apart from the rows, oldest first (SlotValues):
 *   - `earlier`: the earlier versions of the plan's jobs, when the manifest holds a job outside
 *     the plan (the only kind an earlier version is);
 *   - `slots`: every place a row fills, when a job of the plan has no row (a key the state lacks,
 *     in a place a row fills, is `changed`).
 * Neither when the rows are the plan's jobs, no more, no fewer — a finished run's report, a plan
 * read again: then the places are not read (every row again: 100,000 of them, ~0.4 s).
 */
export interface PlacesWanted {
  earlier: boolean;
  slots: boolean;
}

/**
 * `recorded`: the manifest's rows by key when they were read; else how many it holds, the caller's
 * own rows covering the plan (FactsWanted) — any more than the plan's jobs are outside it.
 */
export function placesWanted(recorded: ReadonlyMap<string, unknown> | number, scope: PlanScope): PlacesWanted {
  if (typeof recorded === 'number') return { earlier: recorded > scope.keys.size, slots: false };
  let ofPlan = 0;
  for (const key of recorded.keys()) if (scope.keys.has(key)) ofPlan++;
  return { earlier: ofPlan < recorded.size, slots: ofPlan < scope.keys.size };
}

/** What `places` (read when `wanted` asked for any) say: the earlier versions by the plan's job key, and the places filled (null when not wanted). */
export function placesOf(places: readonly SlotValues[], wanted: PlacesWanted, scope: PlanScope, planJobs: Iterable<PlanJob>): { earlier: Map<string, string[]>; slots: Set<string> | null } {
  return {
    earlier: wanted.earlier ? earlierVersions(places, scope, planJobs) : new Map(),
    slots: wanted.slots ? new Set(places.map(([, step, outputName]) => slotOf(step, outputName))) : null,
  };
}

/** Whether the places are to be read at all. */
export const anyPlaces = (wanted: PlacesWanted): boolean => wanted.earlier || wanted.slots;
