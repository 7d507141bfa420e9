// Starts `reelpipe sandbox --port 0` as its own process, as a user would, and measures:
// 1. start-up: from spawn to the "sandbox listening on" line (target: under 1 s), both through
//    `node bin/reelpipe.js sandbox` and through `npx reelpipe sandbox` (warm: npx's own start-up
//    and package resolution included, after one unmeasured run has warmed its caches);
// 2. job reads per second over keep-alive with undici for ~5 s (target: at least 1,000/s).
// Figures only; no thresholds asserted.
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';

const CLI = fileURLToPath(new URL('../bin/reelpipe.js', import.meta.url));
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ARGS = ['sandbox', '--port', '0', '--speed', '100', '--credits', '1000000'];
const AUTH = { 'x-api-id': 'bench', 'x-api-key': 'bench' };
const SECONDS = 5;
const IN_FLIGHT = 16;
const JOBS = 200;
const NPX = process.platform === 'win32' ? 'npx.cmd' : 'npx';

/**
 * Spawns a sandbox and resolves at its listening line. `detached` puts it in its own process
 * group, so an npx wrapper and the node process under it can be stopped together by group id.
 */
function startSandbox(command, args) {
  const started = performance.now();
  const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'], detached: true });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = /sandbox listening on (\S+)\n/.exec(out);
      if (match) resolve({ child, url: match[1], startupMs: performance.now() - started });
    });
    child.once('exit', (code) => reject(new Error(`${command} exited with ${code} before listening`)));
  });
}

/** Stops a sandbox started here: SIGTERM to its process group (npx and the node under it). */
async function stop(child) {
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  process.kill(-child.pid, 'SIGTERM');
  return exited;
}

/** Start-up through npx, warm: one unmeasured run first, then the median of three. */
async function npxStartupMs() {
  await stop((await startSandbox(NPX, ['reelpipe', ...ARGS])).child);
  const runs = [];
  for (let i = 0; i < 3; i++) {
    const { child, startupMs } = await startSandbox(NPX, ['reelpipe', ...ARGS]);
    runs.push(startupMs);
    await stop(child);
  }
  return runs.sort((a, b) => a - b)[1];
}

async function json(pool, method, path, body) {
  const response = await pool.request({
    method, path, headers: { ...AUTH, 'content-type': 'application/json' }, body: body && JSON.stringify(body),
  });
  return response.body.json();
}

const npxMs = await npxStartupMs();
const { child, url, startupMs } = await startSandbox(process.execPath, [CLI, ...ARGS]);
const pool = new Pool(url, { connections: 8, pipelining: 1 });
const ids = [];
for (let i = 0; i < JOBS; i++) {
  const job = await json(pool, 'POST', '/api/ai_shorts/', { aspect_ratio: '9x16', style: '3D', script: `Bench script number ${i}.` });
  ids.push(job.id);
}

const latencies = [];
let reads = 0;
const deadline = performance.now() + SECONDS * 1000;
async function reader(k) {
  for (let i = k; performance.now() < deadline; i += IN_FLIGHT) {
    const t0 = performance.now();
    const response = await pool.request({ method: 'GET', path: `/api/ai_shorts/${ids[i % JOBS]}/`, headers: AUTH });
    await response.body.dump();
    if (response.statusCode !== 200) throw new Error(`read answered ${response.statusCode}`);
    latencies.push(performance.now() - t0);
    reads++;
  }
}
const began = performance.now();
await Promise.all(Array.from({ length: IN_FLIGHT }, (_, k) => reader(k)));
const elapsed = (performance.now() - began) / 1000;
latencies.sort((a, b) => a - b);
const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))].toFixed(2);

await pool.close();
const exitCode = await stop(child);

console.log(`start-up to listening line, node bin/reelpipe.js sandbox: ${startupMs.toFixed(0)} ms (target < 1000 ms)`);
console.log(`start-up to listening line, npx reelpipe sandbox (warm, median of 3): ${npxMs.toFixed(0)} ms`);
console.log(`job reads: ${reads} in ${elapsed.toFixed(2)} s = ${Math.round(reads / elapsed)} reads/s over 8 keep-alive connections, ${IN_FLIGHT} in flight (target ≥ 1,000/s)`);
console.log(`read latency: p50 ${pct(0.5)} ms, p99 ${pct(0.99)} ms`);
console.log(`sandbox exit code after SIGTERM: ${exitCode}`);
