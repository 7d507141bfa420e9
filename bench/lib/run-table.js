// Summaries and tables of client runs: one column per client, one row per figure, each cell the
// min / median over the runs (figures.js, table.js).
import { summarise } from './figures.js';
import { fixed, markdownTable, minMedian } from './table.js';

/** The figures a client run is compared on, in table order. */
export const RUN_METRICS = [
  { key: 'makespanRatio', label: 'makespan ÷ ideal (first POST → last file written)', digits: 3 },
  { key: 'wallRatio', label: 'process wall time ÷ ideal (start-up and report included)', digits: 3 },
  { key: 'apiPerJob', label: 'API requests per job', digits: 2 },
  { key: 'downloadsPerJob', label: 'download requests per job', digits: 2 },
  { key: 'cpuPerJobMs', label: 'client CPU per job', digits: 2, unit: ' ms' },
  { key: 'peakMb', label: 'client peak memory (RSS)', digits: 0, unit: ' MB' },
  { key: 'makespanS', label: 'makespan', digits: 1, unit: ' s' },
  { key: 'idealS', label: 'ideal: ceil(jobs ÷ capacity) × median life', digits: 1, unit: ' s' },
  { key: 'lifeMs', label: 'a job\'s median life in the service', digits: 0, unit: ' ms' },
];

/** RUN_METRICS and what a run spends outside the makespan: before its first POST, after its last file. */
export const EDGE_METRICS = [
  ...RUN_METRICS,
  { key: 'beforeFirstPostMs', label: 'process start → first POST', digits: 0, unit: ' ms' },
  { key: 'afterLastFileMs', label: 'last file written → process end', digits: 0, unit: ' ms' },
];

/** The value of a metric in one run (seconds derived from the run's milliseconds). */
export function metricOf(run, key) {
  if (key === 'makespanS') return run.makespanMs / 1000;
  if (key === 'idealS') return run.idealMs / 1000;
  return run[key];
}

/** For each client name, each metric's summary over that client's runs. */
export function summariseRuns(runs, names, metrics = RUN_METRICS) {
  return Object.fromEntries(names.map((name) => {
    const own = runs.filter((run) => run.client === name);
    return [name, Object.fromEntries(metrics.map((m) => [m.key, summarise(own.map((run) => metricOf(run, m.key)))]))];
  }));
}

/** The side-by-side table: a row per metric, a column per client. */
export function sideBySide(summaries, names, metrics = RUN_METRICS) {
  const rows = metrics.map((m) => [m.label, ...names.map((name) => minMedian(summaries[name][m.key], m.digits, m.unit ?? ''))]);
  return markdownTable(['', ...names], rows);
}

/** One progress line for a finished run. */
export function runLine(run) {
  return `${run.client}: makespan ${fixed(run.makespanMs / 1000, 1)} s = ${fixed(run.makespanRatio, 3)} × ideal ${fixed(run.idealMs / 1000, 1)} s; `
    + `wall ${fixed(run.wallMs / 1000, 1)} s; API ${fixed(run.apiPerJob)} + downloads ${fixed(run.downloadsPerJob)} requests/job; `
    + `CPU ${fixed(run.cpuPerJobMs)} ms/job; peak ${fixed(run.peakMb, 0)} MB`;
}
