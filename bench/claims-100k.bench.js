// What one claim costs (Store.claim) over a 100,000-job plan (--quick: 10,000), on SQLite and on
// PostgreSQL (a throwaway local server): the plan recorded (syncPlan), a run started, then every
// job claimed window by window as a run claims them — 1,000 at a time (one process), 128 (a member
// of a shared run at concurrency 64) — while the jobs of the window before last are finished
// (moved out of the ready jobs in one writeAll, untimed), so about two windows are claimed and not
// finished at any time, as in a run. Prints the time to record the plan and each claim's median,
// 95th percentile and largest, and the claims' total. Why: a claim used to be told every key the
// run had left and sorted every ready job (O(jobs left) a claim); migration 24 reads a window of
// the ready index instead. Figures only. Writes bench/results/claims-100k.json.
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { openStore } from '../dist/state/open-store.js';
import { sized } from './lib/options.js';
import { startPostgres } from './lib/postgres-server.js';
import { publish } from './lib/results.js';
import { scratchDir } from './lib/scratch.js';
import { fixed, markdownTable } from './lib/table.js';

const JOBS = sized(100_000, 10_000);
const WINDOWS = [1000, 128];
const MANIFEST = 'bench/claims';

const newJob = (i) => ({
  key: `job-${String(i).padStart(7, '0')}`, step: 'shorts', kind: 'ai_short', outputName: `row-${i}`,
  request: { script: `Meet product ${i}: light, fast and made to last.` }, pathId: null, creditsEstimated: 5, plannedItems: null, priority: 0,
});

/** A job finished (out of the ready jobs): a creation refused, the shortest move out of `planned`. */
const finished = (key, at) => ({ key, move: { to: 'rejected', change: { failedReason: 'finished by the benchmark', finishedAt: at }, type: 'job:failed' } });

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];

async function measure(location, window) {
  const store = await openStore(location);
  try {
    const jobs = Array.from({ length: JOBS }, (_, i) => newJob(i));
    const recording = performance.now();
    await store.syncPlan(MANIFEST, jobs);
    const recordMs = performance.now() - recording;
    await store.startRun('bench', process.pid, null);
    const times = [];
    const windows = [];
    let claimed = 0;
    for (;;) {
      const started = performance.now();
      const got = await store.claim(window);
      times.push(performance.now() - started);
      if (got.length === 0) break;
      claimed += got.length;
      windows.push(got);
      if (windows.length > 2) await store.writeAll(windows.shift().map(({ key }) => finished(key, store.clock.now())));
    }
    if (claimed !== JOBS) throw new Error(`claimed ${claimed} of ${JOBS} jobs`);
    const sorted = [...times].sort((a, b) => a - b);
    return { recordMs, claims: times.length, medianMs: percentile(sorted, 0.5), p95Ms: percentile(sorted, 0.95), maxMs: sorted.at(-1), totalMs: times.reduce((a, b) => a + b, 0) };
  } finally {
    await store.close();
  }
}

const server = await startPostgres();
const rows = [];
const figures = {};
try {
  for (const window of WINDOWS) {
    for (const [name, location] of [['SQLite', () => path.join(scratchDir('claims'), 'state.db')], ['PostgreSQL', () => server.database(`claims_${window}`)]]) {
      const result = await measure(await location(), window);
      figures[`${name} ${window}`] = result;
      rows.push([name, window.toLocaleString('en-US'), `${fixed(result.recordMs / 1000, 2)} s`, result.claims.toLocaleString('en-US'),
        `${fixed(result.medianMs, 1)} ms`, `${fixed(result.p95Ms, 1)} ms`, `${fixed(result.maxMs, 1)} ms`, `${fixed(result.totalMs / 1000, 2)} s`]);
      console.log(`${name}, window ${window}: ${result.claims} claims, median ${fixed(result.medianMs, 1)} ms`);
    }
  }
} finally {
  server.stop();
}
publish('claims-100k', [{
  title: `Claiming every job of a ${JOBS.toLocaleString('en-US')}-job plan, a window at a time`,
  table: markdownTable(['state', 'window', 'plan recorded', 'claims', 'median claim', '95th percentile', 'largest', 'all claims'], rows),
}], { jobs: JOBS, figures });
