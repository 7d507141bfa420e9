// A 100,000-job night (issue 24): AI Shorts at concurrency 64 against `reelpipe sandbox --speed 400
// --capacity 64`, at 1,000 → 10,000 → 50,000 → 100,000 jobs (--quick: 1,000 and 5,000), each size
// one round of four clients taking turns, each on a fresh sandbox: reelpipe on its default settings
// (no --rate) with its SQLite state, the same on a PostgreSQL state (a throwaway local server), the
// obvious client and the community SDK pattern. Then the largest SQLite run's finished manifest is
// run again (no request may leave), and `reelpipe plan` is timed on a 1,000,000-row manifest
// (--quick: 100,000). Prints CPU per job, peak memory and makespan per size and client, each
// target of issue 24 with its verdict (and the SQLite state's size per job, linear), and draws
// them: docs/performance-night.svg (--quick: bench/results/night.quick.svg). Every size runs at
// speed 400, so the curve compares like with like (issue 24 asks it of 50,000 and up). It replaces
// the scale curve (scale.bench.js, 1,000 → 50,000 at speed 24, reelpipe alone). Figures only; no
// thresholds asserted. `--sizes 20000,100000` and `--clients sqlite,obvious` (words of the
// clients' names) run only those: the figures go to bench/results/night-100k.partial.json and
// night.partial.svg, never to the docs' chart.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { obviousClient, reelpipe, sdkPattern } from './lib/clients.js';
import { requestCounts, summarise } from './lib/figures.js';
import { runMeasured } from './lib/measure-child.js';
import { measureClient, runProblems } from './lib/measure-run.js';
import { isQuick, listOption, sized } from './lib/options.js';
import { startPostgres } from './lib/postgres-server.js';
import { machine, machineLine, publish, RESULTS_DIR } from './lib/results.js';
import { runLine } from './lib/run-table.js';
import { seriesChartSvg } from './lib/scale-chart.js';
import { scratchDir } from './lib/scratch.js';
import { CLI_NODE_ARGS, clientEnv, startService } from './lib/service.js';
import { fixed, markdownTable } from './lib/table.js';
import { ahead, atMost, linear, TARGET_HEADERS, targetRows } from './lib/targets.js';
import { writeManifest } from './lib/workload.js';

const SPEED = 400;
const chosenSizes = listOption('sizes')?.map(Number);
const chosenClients = listOption('clients')?.map((word) => word.toLowerCase());
const partial = chosenSizes !== undefined || chosenClients !== undefined;
const sizes = chosenSizes ?? sized([1_000, 10_000, 50_000, 100_000], [1_000, 5_000]);
const PLAN_ROWS = sized(1_000_000, 100_000);
const SQLITE = 'reelpipe (SQLite)';
const POSTGRES = 'reelpipe (PostgreSQL)';
const OBVIOUS = 'obvious client';
const chartFile = partial ? `${RESULTS_DIR}night.partial.svg` : isQuick() ? `${RESULTS_DIR}night.quick.svg` : fileURLToPath(new URL('../docs/performance-night.svg', import.meta.url));

console.log(machineLine());
console.log(`AI Shorts at concurrency 64 on reelpipe sandbox --speed ${SPEED} --capacity 64; reelpipe with its defaults (no --rate, --time-scale 1/${SPEED}); one run per client and size`);
const chosen = (name) => !chosenClients || chosenClients.some((word) => name.toLowerCase().includes(word));
const server = chosen(POSTGRES) ? await startPostgres() : null;
let databases = 0;
const clients = [
  reelpipe(SQLITE, { rate: null }),
  reelpipe(POSTGRES, { rate: null, state: () => server.database(`night_${++databases}`) }),
  obviousClient(),
  sdkPattern(),
].filter((client) => chosen(client.name));

const runs = [];
let rerun;
try {
  for (const jobs of sizes) {
    const work = { kind: 'ai_short', jobs, concurrency: 64, capacity: 64, timeScale: 1 / SPEED };
    for (const client of clients) {
      const service = await startService({ speed: SPEED, capacity: 64 });
      try {
        const dir = scratchDir('night');
        const run = await measureClient(service, client, dir, work);
        runs.push(run);
        const problems = runProblems(run);
        console.log(`  ${jobs.toLocaleString('en-US')} jobs, ${runLine(run)}${problems.length ? `  PROBLEM: ${problems.join(', ')}` : ''}`);
        if (client.name === SQLITE && jobs === sizes.at(-1)) rerun = await runAgain(service, client, dir, work);
      } finally {
        await service.stop();
      }
    }
  }
} finally {
  await server?.stop();
}
const plan = await planRows(PLAN_ROWS);

/** The finished manifest run again in its folder against the same sandbox: wall, memory, requests. */
async function runAgain(service, client, dir, work) {
  const before = await service.stats();
  const figures = await runMeasured(await client.prepare({ dir, ...work }), { cwd: dir, env: clientEnv(service.url), stdoutFile: path.join(dir, 'rerun.txt') });
  const counted = requestCounts(before, await service.stats());
  const requests = counted.api + counted.downloads + counted.other;
  console.log(`  re-run of the finished ${work.jobs.toLocaleString('en-US')}-job manifest: ${fixed(figures.wallMs / 1000, 2)} s wall, peak ${fixed(figures.peakMb, 0)} MB, ${requests} requests, exit ${figures.exit}`);
  return { jobs: work.jobs, wallMs: figures.wallMs, peakMb: figures.peakMb, requests, exit: figures.exit };
}

/** `reelpipe plan` (which writes nothing) on the benchmark's manifest of `rows` AI Shorts. */
async function planRows(rows) {
  const dir = scratchDir('night-plan');
  const manifest = writeManifest(dir, { kind: 'ai_short', jobs: rows, concurrency: 64 });
  const figures = await runMeasured([...CLI_NODE_ARGS, 'plan', manifest, '--sandbox', '--quiet'], { cwd: dir, env: clientEnv('http://127.0.0.1:9') });
  console.log(`  reelpipe plan on ${rows.toLocaleString('en-US')} rows: ${fixed(figures.wallMs / 1000, 1)} s wall, peak ${fixed(figures.peakMb, 0)} MB, exit ${figures.exit}`);
  return { rows, wallMs: figures.wallMs, peakMb: figures.peakMb, exit: figures.exit };
}

const of = (name, jobs) => runs.find((r) => r.client === name && r.jobs === jobs);
const one = (value) => summarise([value]);
const names = clients.map((c) => c.name);
const table = markdownTable(['jobs', ...names.map((n) => `${n}: CPU/job · peak · makespan ÷ ideal`)], sizes.map((jobs) => [
  jobs.toLocaleString('en-US'),
  ...names.map((name) => {
    const run = of(name, jobs);
    return run ? `${fixed(run.cpuPerJobMs)} ms · ${fixed(run.peakMb, 0)} MB · ${fixed(run.makespanRatio, 3)}` : '—';
  }),
]));

/** Issue 24's verdicts for reelpipe on SQLite at `jobs`, beside the obvious client of the same size. */
function targetsAt(jobs) {
  const ours = of(SQLITE, jobs);
  const obvious = of(OBVIOUS, jobs);
  if (!ours || !obvious) return [];
  const at = `, ${jobs.toLocaleString('en-US')} jobs`;
  return [
    atMost(`peak memory${at}`, one(ours.peakMb), 200, { digits: 0, unit: ' MB' }),
    atMost(`CPU per job${at}`, one(ours.cpuPerJobMs), 2, { unit: ' ms' }),
    ahead(`CPU per job below the obvious client's${at} (ms)`, one(ours.cpuPerJobMs), one(obvious.cpuPerJobMs), OBVIOUS),
    atMost(`makespan ÷ ideal${at}`, one(ours.makespanRatio), 1.03, { digits: 3 }),
    { ...atMost(`makespan ÷ ideal not behind the obvious client's${at}`, one(ours.makespanRatio), obvious.makespanRatio, { digits: 3 }), goal: `≤ ${OBVIOUS} (${fixed(obvious.makespanRatio, 3)})` },
    atMost(`duplicate creations${at}`, one(ours.duplicates), 0, { digits: 0 }),
  ];
}

const largest = sizes.at(-1);
// The run memory is held to: 10,000 jobs', else the smallest size's; none when only one size ran (a ratio of a run to itself says nothing).
const tenK = sizes.length > 1 ? of(SQLITE, sizes.includes(10_000) ? 10_000 : sizes[0]) : undefined;
const targets = [
  ...sizes.filter((jobs) => jobs >= 50_000 || jobs === largest).flatMap(targetsAt),
  atMost(`peak memory at ${largest.toLocaleString('en-US')} jobs ÷ at ${tenK ? tenK.jobs.toLocaleString('en-US') : 'a smaller size'} (within 15 %)`, one(tenK ? of(SQLITE, largest)?.peakMb / tenK.peakMb : NaN), 1.15),
  atMost(`re-run of the finished ${largest.toLocaleString('en-US')}-job manifest, wall time`, one(rerun ? rerun.wallMs / 1000 : NaN), 3, { unit: ' s' }),
  atMost('re-run requests', one(rerun?.requests ?? NaN), 0, { digits: 0 }),
  linear('SQLite state database size linear in jobs', sizes.map((jobs) => (of(SQLITE, jobs)?.stateBytes ?? NaN) / 1024 / jobs), { digits: 2, unit: ' kB/job' }),
  atMost(`plan on ${PLAN_ROWS.toLocaleString('en-US')} rows, peak memory`, one(plan.exit === 0 ? plan.peakMb : NaN), 300, { digits: 0, unit: ' MB' }),
];

publish(partial ? 'night-100k.partial' : 'night-100k', [
  { title: `a night's batch as it grows (one run per client and size; CPU per job · peak memory · makespan ÷ ideal)`, table },
  { title: 'more', table: markdownTable(['', ''], [
    ['re-run of the finished largest manifest', rerun ? `${fixed(rerun.wallMs / 1000, 2)} s, peak ${fixed(rerun.peakMb, 0)} MB, ${rerun.requests} requests, exit ${rerun.exit}` : 'not run'],
    [`reelpipe plan on ${PLAN_ROWS.toLocaleString('en-US')} rows`, `${fixed(plan.wallMs / 1000, 1)} s, peak ${fixed(plan.peakMb, 0)} MB, exit ${plan.exit}`],
  ]) },
  { title: 'targets (issue 24; one run each, so min = median)', table: markdownTable(TARGET_HEADERS, targetRows(targets)) },
], { settings: { sizes, speed: SPEED, capacity: 64, concurrency: 64, planRows: PLAN_ROWS }, runs, rerun, plan, targets });
// After publish, which makes bench/results/ on a fresh clone.
const m = machine();
const series = names.map((name) => ({ name, points: runs.filter((r) => r.client === name) }));
writeFileSync(chartFile, seriesChartSvg(series, [
  { key: 'cpuPerJobMs', title: 'client CPU per job', unit: 'ms', digits: 2, target: 2 },
  { key: 'peakMb', title: 'peak memory (RSS)', unit: 'MB', digits: 0, target: 200 },
  { key: 'makespanRatio', title: 'makespan ÷ ideal', unit: '×', digits: 2, target: 1.03 },
], `AI Shorts at concurrency 64 on reelpipe sandbox --speed ${SPEED} --capacity 64; ${m.cores} cores, node ${m.node}, commit ${m.commit}, ${new Date().toISOString().slice(0, 10)}`));

console.log(`chart: ${chartFile}`);
