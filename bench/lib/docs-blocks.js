// docs/performance.md carries each benchmark's latest tables between two markers,
// `<!-- bench:NAME -->` and `<!-- /bench:NAME -->`; bench/update-docs.js refills them from
// bench/results/NAME.json, and `<!-- bench:targets -->` with every target in one table.
// Everything outside the markers is written by hand and left alone.
import { markdownTable } from './table.js';

/** The dated block of one benchmark's results: where and when, then each titled table. */
export function renderResults(results) {
  const m = results.machine;
  const when = `_${results.at.slice(0, 10)}, commit ${m.commit}, ${m.cores} cores, load ${m.loadAverage.join(' ')} at the start; \`bench/results/${results.name}.json\`._`;
  return [when, ...results.sections.map(({ title, table }) => `**${title}**\n\n${table}`)].join('\n\n');
}

/**
 * `doc` with the text between NAME's markers replaced by `body`; `undefined` when the document
 * has no such markers (the benchmark is not documented there).
 */
export function replaceBlock(doc, name, body) {
  const open = `<!-- bench:${name} -->`;
  const close = `<!-- /bench:${name} -->`;
  const start = doc.indexOf(open);
  const end = doc.indexOf(close);
  if (start === -1 || end < start) return undefined;
  return `${doc.slice(0, start + open.length)}\n${body}\n${doc.slice(end)}`;
}

/** One table of every target across the benchmarks' results (those that have targets), in order. */
export function renderTargets(allResults) {
  const rows = allResults.flatMap((results) => (results.targets ?? []).map((t) => [
    results.name, t.name, t.goal, t.measured, t.met === undefined ? 'not measured' : t.met ? 'MET' : 'NOT MET',
  ]));
  return markdownTable(['benchmark', 'target', 'goal', 'measured (min / median)', 'verdict (median)'], rows);
}

/** The machine a run was measured on (see results.js `machine()`), as a small table. */
export function renderMachine(m) {
  return markdownTable(['', ''], [
    ['cores (`nproc`)', m.cores], ['CPU', m.cpu], ['memory (`free`)', `${m.memoryGb} GB`], ['system', m.platform],
    ['Node.js', m.node], ['CPU time and peak memory by', m.measuredBy],
  ]);
}
