import { apartParts } from '../plan/budget.js';
import type { PlannedJob } from '../plan/types.js';
import { formatCredits, plural } from '../util/format.js';

/**
 * Credits as every view shows them. Unknown is never 0: a sum over jobs keeps the known figures
 * and counts the jobs of unknown cost beside them, and the text says `unknown` for them.
 */
export interface CreditSum {
  /** The known figures, summed (rounded to hundredths). */
  known: number;
  /** Jobs whose figure is unknown (not in `known`). */
  unknownJobs: number;
  jobs: number;
}

export function sumCredits(values: Iterable<number | null | undefined>): CreditSum {
  let known = 0;
  let unknownJobs = 0;
  let jobs = 0;
  for (const value of values) {
    jobs++;
    if (value === null || value === undefined) unknownJobs++;
    else known += value;
  }
  return { known: Math.round(known * 100) / 100, unknownJobs, jobs };
}

/** The known part, or null when every job is unknown (for `--json`). */
export const knownOrNull = (sum: CreditSum): number | null => (sum.jobs > 0 && sum.unknownJobs === sum.jobs ? null : sum.known);

/** `300`; `unknown` when every job is; `300 + unknown (1 job)` when some are. */
export function creditsText(sum: CreditSum): string {
  if (sum.unknownJobs === 0) return formatCredits(sum.known);
  if (sum.unknownJobs === sum.jobs) return 'unknown';
  return `${formatCredits(sum.known)} + unknown (${plural(sum.unknownJobs, 'job')})`;
}

/**
 * The same text from the pair `--json` outputs carry: the known part (null when every job's figure
 * is unknown) and how many jobs are left out of it.
 */
export function pairText(known: number | null, unknownJobs: number): string {
  // Only whether all, some or none are unknown matters to creditsText, not the number of jobs known.
  return creditsText({ known: known ?? 0, unknownJobs, jobs: known === null ? unknownJobs : unknownJobs + 1 });
}

/** A job whose real cost passed the high end of its estimate. */
export interface Overrun {
  key: string;
  label: string;
  charged: number;
  high: number;
}

/**
 * Whether the service charged `job` more than the high end of its estimate. Only the current
 * attempt's charge is compared: an earlier, failed attempt of a retried job is its own bill.
 */
export function overrunOf(job: PlannedJob, charged: number | null | undefined): Overrun | null {
  if (charged === null || charged === undefined || !job.credits || charged <= job.credits.high + 1e-9) return null;
  return { key: job.key, label: job.label, charged, high: job.credits.high };
}

/** `clone-de (clones:2b75e8f2bb07): charged 168, high estimate 120`. */
export const overrunText = (o: Overrun) =>
  `${o.label} (${o.key}): charged ${formatCredits(o.charged)}, high estimate ${formatCredits(o.high)}`;

/** What a run (or any set of remote jobs) was charged: `12`, `12 + unknown (1 job)`, `unknown` when nothing known was charged. */
export const chargedText = (c: { used: number; unknown: number }): string => pairText(c.unknown > 0 && c.used === 0 ? null : c.used, c.unknown);

/**
 * What is said beside a manifest's credits used: what this run's own requests were charged, when
 * that is not the whole (a first run's is), and what of it went to no job of the plan.
 */
export function usedNotes(c: { used: number | null; unknownUsed: number; thisRun: { used: number; unknown: number }; apart: { superseded: number; removed: number; forgotten: number } }): string[] {
  const whole = Math.abs(c.thisRun.used - (c.used ?? 0)) < 0.005 && c.thisRun.unknown === c.unknownUsed;
  return [...(whole ? [] : [`this run ${chargedText(c.thisRun)}`]), ...apartParts(c.apart)];
}
