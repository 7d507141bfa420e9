import { grownArray, PackedStrings } from '../util/packed-strings.js';

/**
 * What a plan holds of each job while it is streamed: its key, its output name and its step, by
 * its place in the plan (0 for the first) — the compact index of issue 24 (about 50 bytes a job,
 * no object per job). Everything else about a job is made again when it is asked for (the
 * planner's jobs(), or the job's row in the state).
 */
export class PlanIndex {
  private readonly keys = new PackedStrings();
  private readonly names = new PackedStrings();
  private nameOf = new Uint32Array(256);
  private stepOf = new Uint16Array(256);

  constructor(
    /** The plan's step ids, in plan order: a job's step is one of them. */
    readonly steps: readonly string[],
  ) {}

  /** How many jobs. */
  get size(): number {
    return this.keys.size;
  }

  /** Adds the next job of the plan; its place. Keys are unique in a plan (duplicates carry ~2, ~3…). */
  add(key: string, outputName: string, step: number): number {
    const place = this.keys.size;
    if (this.keys.add(key) !== place) throw new Error(`job key ${key} is twice in the plan`);
    if (place >= this.nameOf.length) [this.nameOf, this.stepOf] = [grownArray(this.nameOf, place + 1), grownArray(this.stepOf, place + 1)];
    this.nameOf[place] = this.names.add(outputName);
    this.stepOf[place] = step;
    return place;
  }

  /** The id of job `place`'s output name among the distinct names (0, 1, 2… in the order first given). */
  nameId(place: number): number {
    return this.nameOf[place] as number;
  }

  /** Gives job `place` another output name (a name two jobs would share gets each one's key). */
  rename(place: number, outputName: string): void {
    this.nameOf[place] = this.names.add(outputName);
  }

  /** Lets go of the room kept for growth once every job is in (and the names' lookup table). */
  trim(): void {
    this.keys.trim(true);
    this.names.trim(false);
    this.nameOf = this.nameOf.slice(0, this.size);
    this.stepOf = this.stepOf.slice(0, this.size);
  }

  /** The place of the job of this key, or undefined when the plan has none. */
  ordinal(key: string): number | undefined {
    const place = this.keys.find(key);
    return place < 0 ? undefined : place;
  }

  key(place: number): string {
    return this.keys.get(place);
  }

  outputName(place: number): string {
    return this.names.get(this.nameOf[place] as number);
  }

  /** The number of job `place`'s step in `steps`. */
  stepNumber(place: number): number {
    return this.stepOf[place] as number;
  }

  step(place: number): string {
    return this.steps[this.stepNumber(place)] as string;
  }

  /** Every key, in plan order. */
  *eachKey(): Generator<string> {
    for (let place = 0; place < this.size; place++) yield this.keys.get(place);
  }

  /** Bytes held, for the benchmarks' accounting. */
  get byteSize(): number {
    return this.keys.byteSize + this.names.byteSize + this.nameOf.byteLength + this.stepOf.byteLength;
  }
}
