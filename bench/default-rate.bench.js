// reelpipe with its default settings (no --rate flag) on 1,000 AI Shorts at concurrency 64,
// against a separate `reelpipe sandbox --speed 24 --capacity 64` that never answers 429. Only
// --time-scale 1/24 is given: it matches the runner's waits to the sandbox's speed, as a real
// service needs no flag. Three runs (--quick: one), each on a fresh sandbox.
// Target (issue 11): ≤ 1.08 × the ideal slot cycle. Figures only; no thresholds asserted.
import { reelpipe } from './lib/clients.js';
import { freshRun, runProblems } from './lib/measure-run.js';
import { sized } from './lib/options.js';
import { machineLine, publish } from './lib/results.js';
import { runLine, sideBySide, summariseRuns } from './lib/run-table.js';
import { markdownTable } from './lib/table.js';
import { atMost, TARGET_HEADERS, targetRows } from './lib/targets.js';

const SPEED = 24;
const work = { kind: 'ai_short', jobs: 1_000, concurrency: 64, capacity: 64, timeScale: 1 / SPEED };
const runsWanted = sized(3, 1);
const client = reelpipe('reelpipe (default --rate)', { rate: null });

console.log(machineLine());
console.log(`${work.jobs.toLocaleString('en-US')} AI Shorts, concurrency ${work.concurrency}, sandbox --speed ${SPEED} --capacity ${work.capacity} (no rate limit); reelpipe run --time-scale 1/${SPEED}, no --rate`);
const runs = [];
for (let i = 1; i <= runsWanted; i++) {
  const run = await freshRun(client, work, { speed: SPEED });
  runs.push(run);
  const problems = runProblems(run);
  console.log(`  run ${i}, ${runLine(run)}${problems.length ? `  PROBLEM: ${problems.join(', ')}` : ''}`);
}

const summaries = summariseRuns(runs, [client.name]);
const targets = [atMost('makespan ÷ ideal with the default settings, 1,000 jobs', summaries[client.name].makespanRatio, 1.08, { digits: 3 })];
publish('default-rate', [
  { title: `${work.jobs.toLocaleString('en-US')} AI Shorts, default settings (min / median of ${runsWanted} run${runsWanted === 1 ? '' : 's'})`, table: sideBySide(summaries, [client.name]) },
  { title: 'targets', table: markdownTable(TARGET_HEADERS, targetRows(targets)) },
], { settings: { ...work, speed: SPEED, runs: runsWanted }, summaries, targets, runs });
