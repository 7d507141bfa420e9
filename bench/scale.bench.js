// The scale curve: reelpipe (polling) on 1,000, 10,000 and 50,000 AI Shorts (--quick: 1,000 and
// 5,000), one run each on a fresh `reelpipe sandbox --speed 24 --capacity 64`, concurrency 64.
// Prints CPU per job, peak memory and the state database's size per job at each size, judged
// against "flat or falling" and "linear", and draws them: docs/performance-scale.svg (--quick:
// bench/results/scale.quick.svg, so a quick run never replaces the documented chart).
// Figures only; no thresholds asserted.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { reelpipe } from './lib/clients.js';
import { freshRun, runProblems } from './lib/measure-run.js';
import { isQuick, sized } from './lib/options.js';
import { machine, machineLine, publish, RESULTS_DIR } from './lib/results.js';
import { runLine } from './lib/run-table.js';
import { scaleChartSvg } from './lib/scale-chart.js';
import { fixed, markdownTable } from './lib/table.js';
import { flatOrFalling, linear, TARGET_HEADERS, targetRows } from './lib/targets.js';

const SPEED = 24;
const sizes = sized([1_000, 10_000, 50_000], [1_000, 5_000]);
const client = reelpipe('reelpipe (polling)');
const chartFile = isQuick() ? `${RESULTS_DIR}scale.quick.svg` : fileURLToPath(new URL('../docs/performance-scale.svg', import.meta.url));

console.log(machineLine());
const points = [];
for (const jobs of sizes) {
  const run = await freshRun(client, { kind: 'ai_short', jobs, concurrency: 64, capacity: 64, timeScale: 1 / SPEED }, { speed: SPEED });
  const problems = runProblems(run);
  console.log(`  ${jobs.toLocaleString('en-US')} jobs, ${runLine(run)}; state ${fixed(run.stateBytes / 2 ** 20, 1)} MB${problems.length ? `  PROBLEM: ${problems.join(', ')}` : ''}`);
  points.push({ jobs, cpuPerJobMs: run.cpuPerJobMs, peakMb: run.peakMb, stateKbPerJob: run.stateBytes / 1024 / jobs, stateBytes: run.stateBytes, makespanRatio: run.makespanRatio, apiPerJob: run.apiPerJob, wallMs: run.wallMs, run });
}

const table = markdownTable(['jobs', 'CPU per job', 'peak memory', 'state DB', 'state DB per job', 'makespan ÷ ideal', 'API requests per job'], points.map((p) => [
  p.jobs.toLocaleString('en-US'), `${fixed(p.cpuPerJobMs)} ms`, `${fixed(p.peakMb, 0)} MB`, `${fixed(p.stateBytes / 2 ** 20, 1)} MB`,
  `${fixed(p.stateKbPerJob)} kB`, fixed(p.makespanRatio, 3), fixed(p.apiPerJob),
]));
const targets = [
  flatOrFalling('CPU per job as jobs grow', points.map((p) => p.cpuPerJobMs), { unit: ' ms' }),
  flatOrFalling('peak memory as jobs grow', points.map((p) => p.peakMb), { digits: 0, unit: ' MB' }),
  linear('state database size linear in jobs', points.map((p) => p.stateKbPerJob), { digits: 2, unit: ' kB/job' }),
];

publish('scale', [
  { title: `the scale curve (one run per size; sandbox --speed ${SPEED} --capacity 64, concurrency 64)`, table },
  { title: 'targets', table: markdownTable(TARGET_HEADERS.map((h) => h.replace(' (min / median)', '').replace(' (median)', '')), targetRows(targets)) },
], { settings: { sizes, speed: SPEED, capacity: 64, concurrency: 64 }, points, targets });
// After publish, which makes bench/results/ on a fresh clone.
const m = machine();
writeFileSync(chartFile, scaleChartSvg(points, `reelpipe run (polling), AI Shorts at concurrency 64 on reelpipe sandbox --speed ${SPEED} --capacity 64; ${m.cores} cores, node ${m.node}, commit ${m.commit}, ${new Date().toISOString().slice(0, 10)}`));
console.log(`chart: ${chartFile}`);
