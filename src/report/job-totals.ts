import type { StateWord } from '../state/vocabulary.js';
import { knownOrNull, type CreditSum } from './credits.js';

/** What a totals line counts of one job: `status --json`'s job fields of the same names. */
export interface TotalledJob {
  state: StateWord;
  creditsEstimated: number | null;
  creditsUsed: number | null;
  overHighEstimate: boolean;
}

/**
 * A step's or the manifest's totals, as `status --json` and `plan --json` both give them (one
 * shape, so one script reads either). Unknown is never 0: a sum is of the known figures (null when
 * every job's is unknown), and the jobs left out of it are counted beside it.
 */
export interface JobTotals {
  jobs: number;
  counts: Partial<Record<StateWord, number>>;
  /** Known figures summed; null when every job's figure is unknown. */
  creditsEstimated: number | null;
  creditsUsed: number | null;
  /** Jobs whose estimate / cost is unknown (left out of the sums above). */
  unknownEstimates: number;
  unknownUsed: number;
  overHighEstimate: number;
}

export function totalsOf(jobs: readonly TotalledJob[]): JobTotals {
  const sum = new JobTotalsSum();
  for (const job of jobs) sum.add(job);
  return sum.totals();
}

/** The same totals, a job at a time: a streamed plan's jobs are summed as they pass, none kept. */
export class JobTotalsSum {
  private jobs = 0;
  private readonly counts: Partial<Record<StateWord, number>> = {};
  private sums = { estimated: 0, used: 0, unknownEstimates: 0, unknownUsed: 0, overHigh: 0 };

  add(job: TotalledJob): void {
    this.jobs++;
    this.counts[job.state] = (this.counts[job.state] ?? 0) + 1;
    if (job.creditsEstimated === null) this.sums.unknownEstimates++;
    else this.sums.estimated += job.creditsEstimated;
    if (job.creditsUsed === null) this.sums.unknownUsed++;
    else this.sums.used += job.creditsUsed;
    if (job.overHighEstimate) this.sums.overHigh++;
  }

  totals(): JobTotals {
    const sum = (known: number, unknownJobs: number): CreditSum => ({ known: Math.round(known * 100) / 100, unknownJobs, jobs: this.jobs });
    const [estimated, used] = [sum(this.sums.estimated, this.sums.unknownEstimates), sum(this.sums.used, this.sums.unknownUsed)];
    return {
      jobs: this.jobs,
      counts: { ...this.counts },
      creditsEstimated: knownOrNull(estimated),
      creditsUsed: knownOrNull(used),
      unknownEstimates: estimated.unknownJobs,
      unknownUsed: used.unknownJobs,
      overHighEstimate: this.sums.overHigh,
    };
  }
}
