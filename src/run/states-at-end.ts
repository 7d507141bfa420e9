import { jobStatePages, statusCode, type JobState, type JobStatus, type Store } from '../state/index.js';

/** How many job states a run's end reads at once: a page's rows live only while it is counted. */
export const STATE_PAGE = 2_000;

const DOWNLOADED = 'downloaded' satisfies JobStatus;
const DOWNLOADED_CODE = statusCode(DOWNLOADED);

/**
 * The plan's jobs as the state database has them at a run's end, read a page at a time: each
 * job's status and recorded cost by its place in the plan (a byte and a number), and the rows of
 * the jobs not downloaded — the only ones a summary may name with their reason. Why not every
 * row: at 100,000 jobs the rows held at once (and the report written after them) were the run's
 * peak of memory, though a finished night names none of them.
 */
export class StatesAtEnd {
  readonly counts: Partial<Record<JobStatus, number>> = {};
  /** The rows of the jobs not downloaded, in key order. */
  readonly kept = new Map<string, JobState>();
  private readonly status: Uint8Array;
  private readonly used: Float64Array;
  /** Whether any job of the plan has a recorded cost (else no overrun can be). */
  anyUsed = false;

  private constructor(private readonly placeOf: (key: string) => number | undefined, places: number) {
    // By statusCode: 0 for a job without a row.
    this.status = new Uint8Array(places);
    this.used = new Float64Array(places).fill(Number.NaN);
  }

  /** Reads the manifest's states (only the jobs of the plan: `placeOf` knows them). */
  static async read(store: Pick<Store, 'jobStatePage'>, placeOf: (key: string) => number | undefined, places: number): Promise<StatesAtEnd> {
    const states = new StatesAtEnd(placeOf, places);
    for await (const page of jobStatePages(store, STATE_PAGE)) for (const row of page) states.add(row);
    return states;
  }

  private add(row: JobState): void {
    const place = this.placeOf(row.key);
    if (place === undefined) return;
    this.counts[row.status] = (this.counts[row.status] ?? 0) + 1;
    this.status[place] = statusCode(row.status);
    if (row.creditsUsed !== null) {
      this.used[place] = row.creditsUsed;
      this.anyUsed = true;
    }
    if (row.status !== DOWNLOADED) this.kept.set(row.key, row);
  }

  /** What standingOf reads of a job: its kept row, or only its status for a job downloaded; undefined without a row. */
  get(key: string): Pick<JobState, 'key' | 'status' | 'remoteId' | 'failedReason'> | undefined {
    const kept = this.kept.get(key);
    if (kept) return kept;
    const place = this.placeOf(key);
    return place !== undefined && this.status[place] === DOWNLOADED_CODE ? { key, status: DOWNLOADED, remoteId: null, failedReason: null } : undefined;
  }

  /** The job's recorded cost (null: none recorded, or no row). */
  usedOf(key: string): number | null {
    const place = this.placeOf(key);
    const used = place === undefined ? Number.NaN : this.used[place]!;
    return Number.isNaN(used) ? null : used;
  }
}
