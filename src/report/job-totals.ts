import { countWords, type StateWord } from '../state/vocabulary.js';
import { knownOrNull, sumCredits } from './credits.js';

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
  const estimated = sumCredits(jobs.map((j) => j.creditsEstimated));
  const used = sumCredits(jobs.map((j) => j.creditsUsed));
  return {
    jobs: jobs.length,
    counts: countWords(jobs.map((j) => j.state)),
    creditsEstimated: knownOrNull(estimated),
    creditsUsed: knownOrNull(used),
    unknownEstimates: estimated.unknownJobs,
    unknownUsed: used.unknownJobs,
    overHighEstimate: jobs.filter((j) => j.overHighEstimate).length,
  };
}
