import type { CreditTotal } from './types.js';

export const ZERO: CreditTotal = { low: 0, expected: 0, high: 0 };

export const addCredits = (a: CreditTotal, b: CreditTotal): CreditTotal => ({
  low: a.low + b.low,
  expected: a.expected + b.expected,
  high: a.high + b.high,
});

/** Prices run to tenths (Aurora, Boreal-H3); sums drop the binary noise of adding them. */
const tenths = (n: number) => Math.round(n * 10) / 10;

export const roundTotal = (t: CreditTotal): CreditTotal => ({ low: tenths(t.low), expected: tenths(t.expected), high: tenths(t.high) });

/**
 * A sum over jobs, or null when every one of them is of unknown cost: unknown is never 0, so a
 * step (or plan) nobody can price shows as unknown, not as free. No jobs at all do cost 0.
 */
export const knownOrNull = (sum: CreditTotal, jobs: number, unknownJobs: number): CreditTotal | null =>
  jobs > 0 && unknownJobs === jobs ? null : roundTotal(sum);
