import { noMoney, type MoneyTotals } from './money-sums.js';
import type { PlanScope } from './plan-scope.js';

/** What the state holds of a job's money: enough for the budget gate (plan/budget.ts). */
export interface JobMoneyRow {
  status: string;
  creditsReserved: number;
  creditsEstimated: number | null;
}

/** The budget gate's view of the state (plan/budget.ts RecordedMoney), and the totals it came from. */
export interface RecordedJobMoney {
  job(key: string): JobMoneyRow | undefined;
  spent: number;
  heldOutside: number;
  apart: MoneyTotals['apart'];
  totals: MoneyTotals;
}

/** A JobMoneyRow's columns of the jobs table (its key first), in the order JobMoneyValues holds them. */
export const JOB_MONEY_COLUMNS = 'key, status, credits_reserved, credits_estimated';

export type JobMoneyValues = [key: string, status: string, creditsReserved: number, creditsEstimated: number | null];

/**
 * The money of the plan's jobs (`scope`) from the manifest's job rows and its totals over every
 * charge it ever had (money-sums.ts): each job's status and estimate, what was spent, and what
 * is held for jobs outside the plan. Without a state: no rows, and the totals of nothing.
 */
export function recordedJobMoney(rows: Iterable<JobMoneyValues>, scope: PlanScope, totals: MoneyTotals = noMoney()): RecordedJobMoney {
  const byKey = new Map<string, JobMoneyRow>();
  for (const [key, status, creditsReserved, creditsEstimated] of rows) {
    if (scope.keys.has(key)) byKey.set(key, { status, creditsReserved, creditsEstimated });
  }
  let heldOutside = 0;
  for (const [key, held] of totals.held) if (!scope.keys.has(key)) heldOutside += held;
  return { job: (key) => byKey.get(key), spent: totals.counted, heldOutside, apart: totals.apart, totals };
}
