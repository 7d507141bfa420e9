// The targets beside what was measured. A benchmark prints these and never fails on
// them: a verdict is a line in a table, not an exit code (tests assert behaviour, not speed).
import { fixed, minMedian } from './table.js';

/**
 * How far a "flat" series may rise from one size to the next, and how far apart a "linear"
 * series' per-job values may lie. Why 10 % and 15 %: on the shared 2-core machine the same run
 * differs by about 10 % from one try to the next; a state database also carries a fixed part
 * (schema, the first pages) that makes a small run's size per job a little larger.
 */
export const FLAT_TOLERANCE = 0.1;
export const LINEAR_TOLERANCE = 0.15;

/** The word for a verdict: `true` met, `false` not met, `undefined` nothing to judge. */
export function verdictWord(met) {
  return met === undefined ? 'not measured' : met ? 'MET' : 'NOT MET';
}

/**
 * A target on a summary of runs (see figures.js): met when the median run is at or under `limit`.
 * Why the median: one slow run on a shared machine says little; the median is the typical run.
 */
export function atMost(name, summary, limit, { digits = 2, unit = '' } = {}) {
  const met = Number.isFinite(summary.median) ? summary.median <= limit : undefined;
  return { name, goal: `≤ ${fixed(limit, digits)}${unit}`, measured: minMedian(summary, digits, unit), median: summary.median, met };
}

/** Met when the median of `summary` is below the median of `other` (named `otherName`). */
export function ahead(name, summary, other, otherName, { digits = 2 } = {}) {
  const both = Number.isFinite(summary.median) && Number.isFinite(other.median);
  return {
    name,
    goal: `< ${otherName} (${fixed(other.median, digits)})`,
    measured: minMedian(summary, digits),
    median: summary.median,
    met: both ? summary.median < other.median : undefined,
  };
}

/** Met when no value rises more than FLAT_TOLERANCE above the one before (sizes in order). */
export function flatOrFalling(name, values, { digits = 2, unit = '' } = {}) {
  const finite = values.every((v) => Number.isFinite(v)) && values.length > 1;
  const met = finite ? values.every((v, i) => i === 0 || v <= values[i - 1] * (1 + FLAT_TOLERANCE)) : undefined;
  return { name, goal: `flat or falling (each ≤ +${FLAT_TOLERANCE * 100} %)`, measured: values.map((v) => `${fixed(v, digits)}${unit}`).join(' → '), met };
}

/** Met when every per-job value lies within LINEAR_TOLERANCE of the largest size's. */
export function linear(name, perJob, { digits = 0, unit = '' } = {}) {
  const last = perJob.at(-1);
  const finite = perJob.every((v) => Number.isFinite(v)) && perJob.length > 1;
  const met = finite ? perJob.every((v) => Math.abs(v - last) <= last * LINEAR_TOLERANCE) : undefined;
  return { name, goal: `per job constant (±${LINEAR_TOLERANCE * 100} %)`, measured: perJob.map((v) => `${fixed(v, digits)}${unit}`).join(' → '), met };
}

/** The rows of a targets table. */
export function targetRows(targets) {
  return targets.map((t) => [t.name, t.goal, t.measured, verdictWord(t.met)]);
}

export const TARGET_HEADERS = ['target', 'goal', 'measured (min / median)', 'verdict (median)'];
