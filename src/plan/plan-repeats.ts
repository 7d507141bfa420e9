import { grownArray, PackedStrings } from '../util/packed-strings.js';
import type { PlanIndex } from './plan-index.js';
import type { Plan } from './types.js';

/**
 * What the planner's first pass tells over the whole plan, a job at a time: keys a step repeats,
 * output names two jobs would share, labels repeated. Each holds what it has seen as a packed set
 * (util/packed-strings.ts), and only the exceptions as objects.
 */

/**
 * Identical jobs (same step, same request) are not merged: a user may want two takes of the same
 * script. Each keeps a distinct key — KEY, KEY~2, KEY~3 in plan order — and the set is reported.
 */
export class DuplicateKeys {
  private readonly counts = new Map<string, number>();

  /** `index`: the plan's, holding every key given so far (a key starts with its step's id, so an equal one is of this step). */
  constructor(
    private readonly step: string,
    private readonly index: PlanIndex,
  ) {}

  /** The key the next job of the step gets: its own, or its own with ~N when it is the Nth of that key. */
  unique(key: string): string {
    if (this.index.ordinal(key) === undefined) return key;
    const n = (this.counts.get(key) ?? 1) + 1;
    this.counts.set(key, n);
    return `${key}~${n}`;
  }

  repeats(): Plan['duplicates'] {
    return [...this.counts].map(([key, count]) => ({ key, step: this.step, count }));
  }
}

/**
 * File stems two jobs would share: every job of such a name gets its key appended (with a
 * warning) rather than overwrite the others. Counted over the whole plan (a job's name is known
 * to be shared only once every job is seen), then resolved into the plan's index.
 */
export class NameCounts {
  /** Per name shared: the places of its jobs. */
  private readonly sharing = new Map<number, number[]>();
  /** The place of the first job of each name, by the name's id in the index (ids come 0, 1, 2… as names are first seen). */
  private firstPlace = new Uint32Array(1024);
  private seen = 0;

  constructor(private readonly index: PlanIndex) {}

  /** Counts the name of the job just added to the index at `place`. */
  add(place: number): void {
    const id = this.index.nameId(place);
    if (id === this.seen) {
      if (id >= this.firstPlace.length) this.firstPlace = grownArray(this.firstPlace, id + 1);
      this.firstPlace[this.seen++] = place;
      return;
    }
    const places = this.sharing.get(id);
    if (places) places.push(place);
    else this.sharing.set(id, [this.firstPlace[id] as number, place]);
  }

  /** Renames every job of a shared name in `index` (`NAME-HASH`); the warnings, one per shared name. */
  resolve(): string[] {
    const { index } = this;
    const warnings: string[] = [];
    // In the order the names first appear in the plan.
    for (const [, places] of [...this.sharing].sort(([a], [b]) => a - b)) {
      const name = index.outputName(places[0] as number);
      for (const place of places) index.rename(place, `${name}-${fromKey(index.key(place)).slice(index.step(place).length + 1)}`);
      warnings.push(`${places.length} jobs would write ${name}: each gets its key appended (make name: unique per job)`);
    }
    this.firstPlace = new Uint32Array(0);
    return warnings;
  }
}

/** Makes every label unique within the plan: a repeat gets ` (2)`, ` (3)`… in plan order. */
export class LabelRepeats {
  private readonly taken = new PackedStrings();
  private readonly counts = new Map<string, number>();
  private readonly changed = new Map<number, string>();

  add(label: string, place: number): void {
    if (this.taken.find(label) < 0) {
      this.taken.add(label);
      return;
    }
    let n = this.counts.get(label) ?? 1;
    let unique: string;
    do unique = `${label} (${++n})`;
    while (this.taken.find(unique) >= 0);
    this.counts.set(label, n);
    this.taken.add(unique);
    this.changed.set(place, unique);
  }

  /** The jobs whose label changed, by place, with their new label. */
  renamed(): ReadonlyMap<number, string> {
    return this.changed;
  }
}

/** A job's key as a file stem: `shorts:3f9a…` → `shorts-3f9a…` (and ~2 → -2). */
export const fromKey = (key: string) => key.replace(':', '-').replace('~', '-');
