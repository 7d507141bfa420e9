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

/** As placesWanted, for an outline (facts-rows.ts FactsPart), from `keys`: the key of every row of the manifest, read alone. */
export function placesWantedOfKeys(keys: Iterable<string>, scope: PlanScope): PlacesWanted {
  let [ofPlan, recorded] = [0, 0];
  for (const key of keys) {
    recorded++;
    if (scope.keys.has(key)) ofPlan++;
  }
  return { earlier: ofPlan < recorded, slots: ofPlan < scope.keys.size };
}

/**
 * What an outline's `places` (oldest first) say: the earlier versions, as placesOf, and the places
 * of the rows outside the plan alone. Why theirs alone: a row of the plan fills its own job's
 * place, which no other job of the plan has (output names are unique in a plan), so only a row
 * outside it makes a key the state lacks `changed`; and the set is then as big as the manifest's
 * history, not as its plan (100,000 places, held while the report is written a window at a time).
 */
export function outlinePlaces(places: Iterable<SlotValues>, wanted: PlacesWanted, scope: PlanScope, planJobs: Iterable<PlanJob>): { earlier: Map<string, string[]>; slots: Set<string> | null } {
  const others: SlotValues[] = [];
  for (const place of places) if (!scope.keys.has(place[0])) others.push(place);
  return {
    earlier: wanted.earlier ? earlierVersions(others, scope, planJobs) : new Map(),
    slots: wanted.slots ? new Set(others.map(([, step, outputName]) => slotOf(step, outputName))) : null,
  };
}

/** Whether the places are to be read at all. */
export const anyPlaces = (wanted: PlacesWanted): boolean => wanted.earlier || wanted.slots;
