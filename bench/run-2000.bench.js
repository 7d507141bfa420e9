// The runner on 2,000 jobs (1,000 AI Shorts from a CSV, 1,000 lipsyncs) against a separate
// `reelpipe sandbox` process. Prints: HTTP requests per finished job (from the sandbox's own
// counters), the runner's CPU time and peak memory (GNU time -v on the runner child), wall time,
// and the time to re-run the finished manifest. Figures only; no thresholds asserted.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { fetch } from 'undici';

const JOBS_PER_KIND = 1000;
const SPEED = 2000;
const CLI = fileURLToPath(new URL('../bin/reelpipe.js', import.meta.url));
const dir = mkdtempSync(path.join(tmpdir(), 'reelpipe-bench-run-'));

const lines = ['sku,script'];
for (let i = 0; i < JOBS_PER_KIND; i++) lines.push(`SKU-${i},"Product ${i}: light, fast and made to last."`);
writeFileSync(path.join(dir, 'rows.csv'), `${lines.join('\n')}\n`);
writeFileSync(
  path.join(dir, 'bench.yaml'),
  `version: 1
name: bench
outputs: out
concurrency: 64
steps:
  - id: shorts
    kind: ai_short
    for_each: { csv: rows.csv }
    name: "{{ row.sku }}"
    with: { script: "{{ row.script }}", style: Cinematic, aspect_ratio: 9x16 }
  - id: talk
    kind: lipsync_v2
    for_each: { csv: rows.csv }
    name: "talk-{{ row.sku }}"
    with:
      video_inputs:
        - character: { type: avatar, avatar_id: 5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a }
          voice: { type: text, input_text: "{{ row.script }}" }
`,
);

const sandbox = spawn(process.execPath, [CLI, 'sandbox', '--port', '0', '--speed', String(SPEED), '--capacity', '64', '--credits', '1000000'], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const url = await new Promise((resolve, reject) => {
  sandbox.stdout.on('data', (chunk) => {
    const match = /listening on (\S+)/.exec(chunk.toString());
    if (match) resolve(match[1]);
  });
  sandbox.on('exit', (code) => reject(new Error(`sandbox exited ${code}`)));
});
const env = { ...process.env, REELPIPE_BASE_URL: url, REELPIPE_API_ID: 'bench-id', REELPIPE_API_KEY: 'bench-key' };
const stats = async () => (await fetch(`${url}/__sandbox/stats`)).json();

/** Runs the CLI under GNU time -v; returns wall ms, CPU s and peak RSS in MB. */
async function timedRun() {
  const started = performance.now();
  const { stderr } = await promisify(execFile)(
    '/usr/bin/time',
    ['-v', process.execPath, CLI, 'run', 'bench.yaml', '--time-scale', String(1 / SPEED), '--rate', '1000'],
    { cwd: dir, env, maxBuffer: 256 * 1024 * 1024 },
  ).catch((error) => error);
  const wallMs = performance.now() - started;
  const field = (name) => Number(new RegExp(`${name}: ([\\d.]+)`).exec(stderr)?.[1] ?? NaN);
  return {
    wallMs,
    cpuS: field('User time \\(seconds\\)') + field('System time \\(seconds\\)'),
    peakMb: field('Maximum resident set size \\(kbytes\\)') / 1024,
    exit: field('Exit status'),
  };
}

try {
  const first = await timedRun();
  const afterFirst = await stats();
  const second = await timedRun();
  const afterSecond = await stats();

  const total = (s) => Object.entries(s.requests).filter(([k]) => !k.includes('__sandbox')).reduce((n, [, v]) => n + v, 0);
  const api = (s) => Object.entries(s.requests).filter(([k]) => k.includes('/api/')).reduce((n, [, v]) => n + v, 0);
  const jobs = 2 * JOBS_PER_KIND;
  console.log(`jobs: ${jobs} (exit ${first.exit}); created ${Object.values(afterFirst.created).reduce((a, b) => a + b, 0)}, duplicates ${afterFirst.duplicates.total}`);
  console.log(`first run: ${(first.wallMs / 1000).toFixed(1)} s wall, ${first.cpuS.toFixed(2)} s CPU, peak RSS ${first.peakMb.toFixed(0)} MB`);
  console.log(`HTTP requests per finished job: ${(total(afterFirst) / jobs).toFixed(2)} (API ${(api(afterFirst) / jobs).toFixed(2)}, downloads ${((total(afterFirst) - api(afterFirst)) / jobs).toFixed(2)})`);
  console.log(`  by route: ${JSON.stringify(afterFirst.requests)}`);
  console.log(`re-run of the finished manifest: ${(second.wallMs / 1000).toFixed(2)} s wall, ${second.cpuS.toFixed(2)} s CPU, peak RSS ${second.peakMb.toFixed(0)} MB, exit ${second.exit}, requests ${total(afterSecond) - total(afterFirst)}`);
} finally {
  sandbox.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
