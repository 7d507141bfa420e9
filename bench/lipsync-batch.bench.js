// Batch polling against single reads, on lipsyncs: reelpipe reads the jobs it tracks through the
// list's `ids` filter (up to 100 a request), the obvious client reads each job on its own every
// 2 s (scaled). 1,000 lipsyncs (--quick: 300) at concurrency 64 against a separate
// `reelpipe sandbox --speed 24 --capacity 64`, three rounds (--quick: one), each on a fresh
// sandbox. Prints requests per job by route. Figures only; no thresholds asserted.
import { obviousClient, reelpipe } from './lib/clients.js';
import { freshRun, runProblems } from './lib/measure-run.js';
import { sized } from './lib/options.js';
import { machineLine, publish } from './lib/results.js';
import { RUN_METRICS, runLine, sideBySide, summariseRuns } from './lib/run-table.js';

const SPEED = 24;
const work = { kind: 'lipsync', jobs: sized(1_000, 300), concurrency: 64, capacity: 64, timeScale: 1 / SPEED };
const rounds = sized(3, 1);
const clients = [reelpipe('reelpipe (ids lists)'), obviousClient()];
const names = clients.map((c) => c.name);
const LIST = 'GET /api/lipsyncs_v2/';
const SINGLE = 'GET /api/lipsyncs_v2/{id}/';
const metrics = [
  { key: 'listReadsPerJob', label: `list reads per job (${LIST}?ids=…)`, digits: 3 },
  { key: 'singleReadsPerJob', label: `single reads per job (${SINGLE})`, digits: 3 },
  { key: 'apiPerJob', label: 'API requests per job (creation included)', digits: 2 },
  ...RUN_METRICS.filter((m) => ['makespanRatio', 'cpuPerJobMs', 'peakMb', 'lifeMs'].includes(m.key)),
];

console.log(machineLine());
console.log(`${work.jobs.toLocaleString('en-US')} lipsyncs, concurrency ${work.concurrency}, sandbox --speed ${SPEED} --capacity ${work.capacity}; ${rounds} round(s)`);
const runs = [];
for (let round = 1; round <= rounds; round++) {
  for (const client of clients) {
    const run = await freshRun(client, work, { speed: SPEED });
    const routes = run.requests.byRoute;
    runs.push({ round, ...run, listReadsPerJob: (routes[LIST] ?? 0) / run.jobs, singleReadsPerJob: (routes[SINGLE] ?? 0) / run.jobs });
    const problems = runProblems(run);
    console.log(`  round ${round}, ${runLine(run)}${problems.length ? `  PROBLEM: ${problems.join(', ')}` : ''}`);
  }
}

const summaries = summariseRuns(runs, names, metrics);
publish('lipsync-batch', [
  { title: `${work.jobs.toLocaleString('en-US')} lipsyncs, batch polling against single reads (min / median of ${rounds} run${rounds === 1 ? '' : 's'})`, table: sideBySide(summaries, names, metrics) },
], { settings: { ...work, speed: SPEED, rounds }, summaries, runs });
