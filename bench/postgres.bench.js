// The state on PostgreSQL beside SQLite (issue 22): 10,000 AI Shorts (--quick: 1,000) at
// concurrency 64 against a separate `reelpipe sandbox --speed 24 --capacity 64`, made by reelpipe
// (polling) with its state in SQLite (the default file) and in PostgreSQL — a throwaway local
// server this benchmark starts (bench/lib/postgres-server.js: fsync off, as the tests'), a fresh
// database per run — taking turns, three rounds (--quick: one). Then a finished manifest of
// 10,000 (--quick: 2,000) run again three times on each store. Prints PostgreSQL's makespan and
// CPU per job against SQLite's in the same round, the store's round trips per job (PgStore counts
// them; each run's `run:finished` event keeps the count), the server's own CPU apart, and the
// re-run's wall time. Figures only; no thresholds asserted.
import path from 'node:path';
import { summarise } from './lib/figures.js';
import { reelpipe } from './lib/clients.js';
import { runMeasured } from './lib/measure-child.js';
import { freshRun, runProblems } from './lib/measure-run.js';
import { sized } from './lib/options.js';
import { adminQuery, startPostgres } from './lib/postgres-server.js';
import { machineLine, publish } from './lib/results.js';
import { runLine, sideBySide, summariseRuns, RUN_METRICS } from './lib/run-table.js';
import { scratchDir } from './lib/scratch.js';
import { CLI_NODE_ARGS, clientEnv, startService } from './lib/service.js';
import { fixed, markdownTable, minMedian } from './lib/table.js';
import { atMost, TARGET_HEADERS, targetRows } from './lib/targets.js';
import { writeManifest } from './lib/workload.js';

const SPEED = 24;
const work = { kind: 'ai_short', jobs: sized(10_000, 1_000), concurrency: 64, capacity: 64, timeScale: 1 / SPEED };
const rounds = sized(3, 1);
const RERUN = { jobs: sized(10_000, 2_000), speed: 2000, times: 3 };
const SQLITE = 'SQLite';
const POSTGRES = 'PostgreSQL';

console.log(machineLine());
const server = await startPostgres();
let databases = 0;
let latest;
/** A fresh database on the bench's server; `latest` names it for reading the run's count after it. */
const database = async () => (latest = await server.database(`bench_${++databases}`));

/** The store's round trips as the run's `run:finished` event kept them (PgStore.roundTrips), and the database's size. */
async function pgFigures(url) {
  const [finished] = await adminQuery(url, "SELECT data FROM events WHERE type = 'run:finished' ORDER BY id DESC LIMIT 1");
  const [size] = await adminQuery(url, 'SELECT pg_database_size(current_database())::float8 AS bytes');
  return { roundTrips: finished?.data ? JSON.parse(finished.data).roundTrips ?? NaN : NaN, databaseBytes: size.bytes };
}

/** One measured run on `store`, with the PostgreSQL server's CPU over it and the store's round trips. */
async function measured(store) {
  const client = reelpipe(store, store === POSTGRES ? { state: database } : {});
  const serverBefore = server.cpuMs();
  const run = await freshRun(client, work, { speed: SPEED });
  if (store !== POSTGRES) return { ...run, serverCpuPerJobMs: 0, totalCpuPerJobMs: run.cpuPerJobMs };
  const serverCpuPerJobMs = (server.cpuMs() - serverBefore) / work.jobs;
  const pg = await pgFigures(latest);
  return { ...run, serverCpuPerJobMs, totalCpuPerJobMs: run.cpuPerJobMs + serverCpuPerJobMs, roundTripsPerJob: pg.roundTrips / work.jobs, databaseBytes: pg.databaseBytes };
}

/** A finished manifest run again `RERUN.times` times on `store`, after one run to its end (not measured). */
async function reruns(store) {
  const service = await startService({ speed: RERUN.speed, capacity: 64 });
  const dir = scratchDir(`rerun-${store}`);
  try {
    const state = store === POSTGRES ? ['--state', await database()] : [];
    const manifest = writeManifest(dir, { kind: 'ai_short', jobs: RERUN.jobs, concurrency: 64 });
    const args = [...CLI_NODE_ARGS, 'run', manifest, '--time-scale', String(1 / RERUN.speed), '--rate', '1000', ...state];
    const run = (out) => runMeasured(args, { cwd: dir, env: clientEnv(service.url), stdoutFile: path.join(dir, out) });
    const first = await run('first.txt');
    console.log(`  ${store}: first run (not measured) of ${RERUN.jobs.toLocaleString('en-US')} AI Shorts at speed ${RERUN.speed}: ${fixed(first.wallMs / 1000, 1)} s, exit ${first.exit}`);
    const out = [];
    for (let i = 1; i <= RERUN.times; i++) {
      const before = (await service.stats()).requests;
      const figures = await run(`rerun-${i}.txt`);
      const after = (await service.stats()).requests;
      const requests = Object.entries(after).filter(([route]) => !route.includes('/__sandbox/')).reduce((sum, [route, n]) => sum + n - (before[route] ?? 0), 0);
      const roundTrips = store === POSTGRES ? (await pgFigures(latest)).roundTrips : NaN;
      out.push({ ...figures, requests, roundTrips });
      console.log(`  ${store}: re-run ${i}: ${fixed(figures.wallMs / 1000, 2)} s wall, ${fixed(figures.cpuMs / 1000, 2)} s CPU, peak ${fixed(figures.peakMb, 0)} MB, ${requests} requests${store === POSTGRES ? `, ${roundTrips} round trips` : ''}, exit ${figures.exit}`);
    }
    return { first: { wallMs: first.wallMs, exit: first.exit }, runs: out.map(({ stderr: _stderr, ...rest }) => rest) };
  } finally {
    await service.stop();
  }
}

try {
  console.log(`${work.jobs.toLocaleString('en-US')} AI Shorts, concurrency ${work.concurrency}, sandbox --speed ${SPEED} --capacity ${work.capacity}; reelpipe polling with --time-scale 1/${SPEED} --rate 1000, the state in SQLite and in PostgreSQL (${server.url}), taking turns; ${rounds} round(s)`);
  const runs = [];
  for (let round = 1; round <= rounds; round++) {
    for (const store of [SQLITE, POSTGRES]) {
      const run = { round, ...(await measured(store)) };
      runs.push(run);
      const problems = runProblems(run);
      const extra = store === POSTGRES ? `; server CPU ${fixed(run.serverCpuPerJobMs)} ms/job; ${fixed(run.roundTripsPerJob)} round trips/job` : '';
      console.log(`  round ${round}, ${runLine(run)}${extra}${problems.length ? `  PROBLEM: ${problems.join(', ')}` : ''}`);
    }
  }
  const rerun = { [SQLITE]: await reruns(SQLITE), [POSTGRES]: await reruns(POSTGRES) };
  report(runs, rerun);
} finally {
  server.stop();
}

/** Prints and writes the tables: the runs side by side, PostgreSQL against SQLite round by round, the re-runs, the targets. */
function report(runs, rerun) {
  const metrics = [
    ...RUN_METRICS,
    { key: 'serverCpuPerJobMs', label: 'PostgreSQL server CPU per job (all its processes)', digits: 2, unit: ' ms' },
    { key: 'totalCpuPerJobMs', label: 'CPU per job, reelpipe + server', digits: 2, unit: ' ms' },
    { key: 'roundTripsPerJob', label: 'state round trips per job (PgStore)', digits: 2 },
  ];
  const summaries = summariseRuns(runs, [SQLITE, POSTGRES], metrics);
  // Why ratios round by round: the two stores of one round ran minutes apart on the same machine;
  // the machine's speed drifts over an hour far more than between them.
  const ratio = (key) => summarise(runs.filter((r) => r.client === POSTGRES).map((pg) => pg[key] / runs.find((s) => s.client === SQLITE && s.round === pg.round)[key]));
  const ratios = { makespan: ratio('makespanMs'), cpu: ratio('cpuPerJobMs'), totalCpu: ratio('totalCpuPerJobMs') };
  const rerunOf = (store, key) => summarise(rerun[store].runs.map((r) => r[key]));
  const wall = (store) => summarise(rerun[store].runs.map((r) => r.wallMs / 1000));
  const cpu = (store) => summarise(rerun[store].runs.map((r) => r.cpuMs / 1000));
  const scope = work.jobs === 10_000 ? '' : ` (stated for 10,000 jobs; measured at ${work.jobs.toLocaleString('en-US')})`;
  const rerunScope = RERUN.jobs === 10_000 ? '' : ` (stated for 10,000 jobs; measured at ${RERUN.jobs.toLocaleString('en-US')})`;
  const targets = [
    atMost(`makespan, PostgreSQL ÷ SQLite (same round)${scope}`, ratios.makespan, 1.05, { digits: 3 }),
    atMost('CPU per job of reelpipe, PostgreSQL ÷ SQLite (same round)', ratios.cpu, 1.3),
    atMost('CPU per job with the server\'s, PostgreSQL ÷ SQLite (same round)', ratios.totalCpu, 1.3),
    atMost('state round trips per job, PostgreSQL', summaries[POSTGRES].roundTripsPerJob, 4),
    atMost(`re-run of a finished manifest on PostgreSQL, wall time${rerunScope}`, wall(POSTGRES), 3, { unit: ' s' }),
    atMost('re-run on PostgreSQL, requests to the service', rerunOf(POSTGRES, 'requests'), 0, { digits: 0 }),
  ];
  const ratioTable = markdownTable(['PostgreSQL ÷ SQLite, round by round', 'min / median'], [
    ['makespan', minMedian(ratios.makespan, 3)], ['CPU per job, reelpipe process', minMedian(ratios.cpu, 3)], ['CPU per job, reelpipe + PostgreSQL server', minMedian(ratios.totalCpu, 3)],
  ]);
  const rerunTable = markdownTable(['', SQLITE, POSTGRES], [
    ['wall time', minMedian(wall(SQLITE), 2, ' s'), minMedian(wall(POSTGRES), 2, ' s')],
    ['CPU (user + system)', minMedian(cpu(SQLITE), 2, ' s'), minMedian(cpu(POSTGRES), 2, ' s')],
    ['peak memory (RSS)', minMedian(rerunOf(SQLITE, 'peakMb'), 0, ' MB'), minMedian(rerunOf(POSTGRES, 'peakMb'), 0, ' MB')],
    ['requests to the service', minMedian(rerunOf(SQLITE, 'requests'), 0), minMedian(rerunOf(POSTGRES, 'requests'), 0)],
    ['state round trips', '–', minMedian(rerunOf(POSTGRES, 'roundTrips'), 0)],
    ['exit status', rerun[SQLITE].runs.map((r) => r.exit).join(', '), rerun[POSTGRES].runs.map((r) => r.exit).join(', ')],
  ]);
  publish('postgres', [
    { title: `${work.jobs.toLocaleString('en-US')} AI Shorts, the state in SQLite and in PostgreSQL (min / median of ${rounds} run${rounds === 1 ? '' : 's'})`, table: sideBySide(summaries, [SQLITE, POSTGRES], metrics) },
    { title: 'PostgreSQL against SQLite in the same round', table: ratioTable },
    { title: `re-run of a finished ${RERUN.jobs.toLocaleString('en-US')}-job manifest (min / median of ${RERUN.times} re-runs)`, table: rerunTable },
    { title: 'targets', table: markdownTable(TARGET_HEADERS, targetRows(targets)) },
  ], { settings: { ...work, speed: SPEED, rounds, rerun: RERUN }, summaries, ratios, targets, runs, rerun });
}
