// Re-running a finished manifest of 10,000 AI Shorts (--quick: 2,000): every job is already
// downloaded, so the run checks its state and files and makes no request. The manifest is first
// run to its end against a separate sandbox at speed 2000 (not measured); then the same command is
// run three times again and measured: wall time, CPU, peak memory, requests the sandbox counted.
// Target (issue 11): ≤ 1.5 s, and no request. Figures only; no thresholds asserted.
import path from 'node:path';
import { requestCounts, summarise } from './lib/figures.js';
import { runMeasured } from './lib/measure-child.js';
import { sized } from './lib/options.js';
import { machineLine, publish } from './lib/results.js';
import { CLI_NODE_ARGS, clientEnv, startService } from './lib/service.js';
import { fixed, markdownTable, minMedian } from './lib/table.js';
import { atMost, TARGET_HEADERS, targetRows } from './lib/targets.js';
import { writeManifest } from './lib/workload.js';
import { scratchDir } from './lib/scratch.js';

const SPEED = 2000;
const JOBS = sized(10_000, 2_000);
const RERUNS = 3;

console.log(machineLine());
const service = await startService({ speed: SPEED, capacity: 64 });
const dir = scratchDir('rerun');
try {
  const manifest = writeManifest(dir, { kind: 'ai_short', jobs: JOBS, concurrency: 64 });
  const args = [...CLI_NODE_ARGS, 'run', manifest, '--time-scale', String(1 / SPEED), '--rate', '1000'];
  const run = (stdout) => runMeasured(args, { cwd: dir, env: clientEnv(service.url), stdoutFile: path.join(dir, stdout) });
  const first = await run('first.txt');
  console.log(`first run (not measured): ${JOBS.toLocaleString('en-US')} AI Shorts at speed ${SPEED} in ${fixed(first.wallMs / 1000, 1)} s, exit ${first.exit}`);

  const reruns = [];
  for (let i = 1; i <= RERUNS; i++) {
    const before = await service.stats();
    const figures = await run(`rerun-${i}.txt`);
    const requests = requestCounts(before, await service.stats());
    reruns.push({ wallMs: figures.wallMs, cpuMs: figures.cpuMs, peakMb: figures.peakMb, exit: figures.exit, requests: requests.api + requests.downloads + requests.other });
    console.log(`  re-run ${i}: ${fixed(figures.wallMs / 1000, 2)} s wall, ${fixed(figures.cpuMs / 1000, 2)} s CPU, peak ${fixed(figures.peakMb, 0)} MB, ${reruns.at(-1).requests} requests, exit ${figures.exit}`);
  }

  const of = (key) => summarise(reruns.map((r) => r[key]));
  const wallS = summarise(reruns.map((r) => r.wallMs / 1000));
  const cpuS = summarise(reruns.map((r) => r.cpuMs / 1000));
  const table = markdownTable(['', `re-run of a finished ${JOBS.toLocaleString('en-US')}-job manifest`], [
    ['wall time', minMedian(wallS, 2, ' s')],
    ['CPU (user + system)', minMedian(cpuS, 2, ' s')],
    ['peak memory (RSS)', minMedian(of('peakMb'), 0, ' MB')],
    ['requests to the service', minMedian(of('requests'), 0)],
    ['exit status', reruns.map((r) => r.exit).join(', ')],
  ]);
  const scope = JOBS === 10_000 ? '' : ` (stated for 10,000 jobs; measured at ${JOBS.toLocaleString('en-US')})`;
  const targets = [
    atMost(`re-run wall time${scope}`, wallS, 1.5, { unit: ' s' }),
    atMost('re-run requests', of('requests'), 0, { digits: 0 }),
  ];
  publish('rerun-10k', [
    { title: `re-run of a finished manifest (min / median of ${RERUNS} re-runs)`, table },
    { title: 'targets', table: markdownTable(TARGET_HEADERS, targetRows(targets)) },
  ], { settings: { jobs: JOBS, speed: SPEED, reruns: RERUNS }, first: { wallMs: first.wallMs, exit: first.exit }, reruns, targets });
} finally {
  await service.stop();
}
