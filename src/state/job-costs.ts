/** What a reader asks of each job's own money (JobCosts, or a window's map): its figure by key, null when not known. */
export interface JobFigures {
  has(key: string): boolean;
  get(key: string): number | null | undefined;
}

/**
 * Each job's own money by key (money-sums.ts sumMoney): the figure, null when a cost is not known;
 * a job without a charge has none (`has` is false; every reader counts it as 0). The plan's jobs
 * are kept by their place when the plan can tell it (a streamed plan's index): 9 bytes a job,
 * where a map's entry and its key took about 100 — at 100,000 jobs, 9.6 MB that a run's end held
 * through its report. Other keys (earlier versions, jobs that left the plan) go in a map.
 */
export class JobCosts implements JobFigures {
  /** The figure at each place; NaN, not known. Read only where `placedHas` is 1. */
  private readonly placed: Float64Array;
  private readonly placedHas: Uint8Array;
  private readonly byKey = new Map<string, number | null>();
  private count = 0;

  /** `placeOf`: a plan job's place (0 for the first) among `places`, undefined for a key outside the plan. */
  constructor(
    private readonly placeOf?: (key: string) => number | undefined,
    places = 0,
  ) {
    this.placed = new Float64Array(placeOf ? places : 0);
    this.placedHas = new Uint8Array(placeOf ? places : 0);
  }

  /** How many jobs have a figure. */
  get size(): number {
    return this.count;
  }

  has(key: string): boolean {
    const place = this.at(key);
    return place === undefined ? this.byKey.has(key) : this.placedHas[place] === 1;
  }

  get(key: string): number | null | undefined {
    const place = this.at(key);
    if (place === undefined) return this.byKey.get(key);
    if (this.placedHas[place] !== 1) return undefined;
    const figure = this.placed[place] as number;
    return Number.isNaN(figure) ? null : figure;
  }

  set(key: string, figure: number | null): this {
    if (!this.has(key)) this.count++;
    const place = this.at(key);
    if (place === undefined) this.byKey.set(key, figure);
    else [this.placedHas[place], this.placed[place]] = [1, figure ?? Number.NaN];
    return this;
  }

  /** Each known figure passed through `round` (credits are kept to the hundredth). */
  round(round: (n: number) => number): this {
    for (let place = 0; place < this.placed.length; place++) {
      if (this.placedHas[place] === 1 && !Number.isNaN(this.placed[place])) this.placed[place] = round(this.placed[place] as number);
    }
    for (const [key, figure] of this.byKey) if (figure !== null) this.byKey.set(key, round(figure));
    return this;
  }

  private at(key: string): number | undefined {
    const place = this.placeOf?.(key);
    return place !== undefined && place < this.placed.length ? place : undefined;
  }
}
