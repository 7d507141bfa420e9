// Two builds of reelpipe side by side, for a change that must cost nothing: `--before DIR` names
// another checkout (built: its bin/reelpipe.js and dist/), this checkout is "after". Each pair runs
// the same work once with each build, interleaved (before, after, before, after…) so a machine
// busier at one moment weighs on both: JOBS AI Shorts (default 2,000) at concurrency 64 against a
// fresh separate sandbox (this build's, --speed 200 --capacity 64), then the finished manifest run
// again (the re-run: state and files checked, no request). Prints each pair and the medians of
// CPU per job, makespan ÷ ideal, peak memory and re-run wall time. Figures only; nothing asserted.
// Not in run-all.js: it needs a second checkout. Usage:
//   node bench/before-after.bench.js --before ../before [--pairs 5] [--jobs 2000]
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { median } from './lib/figures.js';
import { measureClient } from './lib/measure-run.js';
import { runMeasured } from './lib/measure-child.js';
import { machineLine } from './lib/results.js';
import { scratchDir } from './lib/scratch.js';
import { CLI, CLI_NODE_ARGS, clientEnv, startService } from './lib/service.js';
import { fixed, markdownTable } from './lib/table.js';
import { writeManifest } from './lib/workload.js';

const flag = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : process.argv[at + 1];
};
const beforeDir = flag('before');
if (!beforeDir || !existsSync(path.join(beforeDir, 'bin', 'reelpipe.js'))) {
  console.error('usage: node bench/before-after.bench.js --before DIR [--pairs N] [--jobs N]  (DIR: another checkout, built)');
  process.exit(2);
}
const PAIRS = Number(flag('pairs', '5'));
const JOBS = Number(flag('jobs', '2000'));
const SPEED = 200;
const work = { kind: 'ai_short', jobs: JOBS, concurrency: 64, capacity: 64, timeScale: 1 / SPEED };
const builds = { before: path.resolve(beforeDir, 'bin', 'reelpipe.js'), after: CLI };
const commitOf = (dir) => {
  try {
    return execFileSync('git', ['-C', dir, 'log', '-1', '--format=%h %s'], { encoding: 'utf8' }).trim().slice(0, 72);
  } catch {
    return 'not a git checkout';
  }
};

/** A client running the CLI at `bin` (CLI_NODE_ARGS with this checkout's launcher swapped for it). */
const cliAt = (name, bin) => ({
  name,
  async prepare({ dir, kind, jobs, concurrency, timeScale }) {
    const manifest = writeManifest(dir, { kind, jobs, concurrency });
    return [...CLI_NODE_ARGS.map((arg) => (arg === CLI ? bin : arg)), 'run', manifest, '--time-scale', String(timeScale), '--rate', '1000'];
  },
});

async function measure(name) {
  const service = await startService({ speed: SPEED, capacity: work.capacity });
  try {
    const dir = scratchDir(`pair-${name}`);
    const client = cliAt(name, builds[name]);
    const run = await measureClient(service, client, dir, work);
    const again = await runMeasured(await client.prepare({ dir, ...work }), { cwd: dir, env: clientEnv(service.url) });
    return { ...run, rerunMs: again.wallMs, rerunExit: again.exit };
  } finally {
    await service.stop();
  }
}

console.log(machineLine());
console.log(`${JOBS.toLocaleString('en-US')} AI Shorts, concurrency 64, sandbox --speed ${SPEED} --capacity 64; ${PAIRS} interleaved pairs`);
console.log(`before: ${commitOf(beforeDir)}\nafter:  ${commitOf(path.dirname(path.dirname(CLI)))}`);
const runs = { before: [], after: [] };
for (let pair = 1; pair <= PAIRS; pair++) {
  for (const name of ['before', 'after']) {
    const run = await measure(name);
    runs[name].push(run);
    console.log(`  pair ${pair} ${name.padEnd(6)} exit ${run.exit}/${run.rerunExit}  CPU/job ${fixed(run.cpuPerJobMs, 2)} ms  makespan÷ideal ${fixed(run.makespanRatio, 3)}  peak ${fixed(run.peakMb, 0)} MB  re-run ${fixed(run.rerunMs / 1000, 2)} s  files ${run.files}`);
  }
}
const med = (name, pick) => median(runs[name].map(pick));
const rows = [
  ['CPU per job (ms)', (r) => r.cpuPerJobMs, 2],
  ['makespan ÷ ideal', (r) => r.makespanRatio, 3],
  ['peak memory (MB)', (r) => r.peakMb, 0],
  ['re-run wall (s)', (r) => r.rerunMs / 1000, 2],
].map(([label, pick, digits]) => {
  const [b, a] = [med('before', pick), med('after', pick)];
  return [label, fixed(b, digits), fixed(a, digits), `${a >= b ? '+' : ''}${fixed(((a - b) / b) * 100, 1)} %`];
});
console.log(`\nmedians of ${PAIRS} pairs\n`);
console.log(markdownTable(['figure', 'before', 'after', 'change'], rows));
