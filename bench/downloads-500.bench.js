// The throughput of 500 downloads: 500 AI Shorts are made on a separate sandbox (not measured),
// then their videos are fetched three times over, each into a fresh folder: through reelpipe's
// own download path (fetchOutput: stream to a temporary file, checksum, fsync, rename; through
// the address guard) at the runner's default download concurrency and at 16, and, for
// reference, with a plain fetch + writeFile. Prints files/s and MB/s (min / median of three),
// and the CPU per file of this process. Figures only; no thresholds asserted.
import { Buffer } from 'node:buffer';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import pLimit from 'p-limit';
import { fetch } from 'undici';
import { fetchOutput, guardedDispatcher } from '../dist/download/index.js';
import { resolveRunOptions } from '../dist/run/run-options.js';
import { summarise } from './lib/figures.js';
import { machineLine, publish } from './lib/results.js';
import { clientEnv, startService } from './lib/service.js';
import { markdownTable, minMedian } from './lib/table.js';
import { KINDS } from './lib/workload.js';
import { scratchDir } from './lib/scratch.js';

const FILES = 500;
const ROUNDS = 3;
const RUNNER_DEFAULT = resolveRunOptions({}, { concurrency: 1, maxCredits: null }).downloadConcurrency;

console.log(machineLine());
const service = await startService({ speed: 10_000, capacity: 512 });
const env = clientEnv(service.url);
const headers = { 'x-api-id': env.REELPIPE_API_ID, 'x-api-key': env.REELPIPE_API_KEY, 'content-type': 'application/json' };
const api = async (method, route, body) => (await fetch(`${service.url}${route}`, { method, headers, body: body && JSON.stringify(body) })).json();

/** Makes FILES AI Shorts, waits until the sandbox has finished them all, returns their video URLs. */
async function finishedOutputs() {
  const kind = KINDS.ai_short;
  const limit = pLimit(16);
  const ids = await Promise.all(Array.from({ length: FILES }, (_, i) => limit(async () => (await api('POST', kind.path, kind.body(i))).id)));
  while ((await service.jobs()).some((job) => job.status !== 'done')) await sleep(100);
  const urls = [];
  for (let i = 0; i < ids.length; i += 100) {
    const jobs = await api('GET', `${kind.path}?ids=${ids.slice(i, i + 100).join(',')}`);
    urls.push(...jobs.map((job) => job[kind.output]));
  }
  return urls;
}

const reelpipeDownload = (url, i, dir) => fetchOutput(url, {
  outputsDir: dir, name: { step: 'shorts', name: `SKU-${i}` }, media: 'video',
  dispatcher: guardedDispatcher({ serviceUrl: service.url }),
  refresh: async () => url, sleep: (ms) => sleep(ms),
});
const plainDownload = async (url, i, dir) => {
  const body = Buffer.from(await (await fetch(url)).arrayBuffer());
  writeFileSync(path.join(dir, `SKU-${i}.mp4`), body);
  return { bytes: body.length };
};

/** Fetches every URL with `download` at `concurrency`, into a fresh folder; returns the figures. */
async function measure(urls, download, concurrency) {
  const dir = scratchDir('downloads');
  const limit = pLimit(concurrency);
  const cpu = process.cpuUsage();
  const started = performance.now();
  const files = await Promise.all(urls.map((url, i) => limit(() => download(url, i, dir))));
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const bytes = files.reduce((n, f) => n + f.bytes, 0);
  return { seconds, bytes, filesPerS: urls.length / seconds, mbPerS: bytes / 2 ** 20 / seconds, cpuPerFileMs: (used.user + used.system) / 1000 / urls.length };
}

try {
  const urls = await finishedOutputs();
  const ways = [
    [`reelpipe fetchOutput, ${RUNNER_DEFAULT} at once (the runner's default)`, reelpipeDownload, RUNNER_DEFAULT],
    ['reelpipe fetchOutput, 16 at once', reelpipeDownload, 16],
    [`plain fetch + writeFile, ${RUNNER_DEFAULT} at once (reference)`, plainDownload, RUNNER_DEFAULT],
  ];
  const figures = Object.fromEntries(ways.map(([name]) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, download, concurrency] of ways) figures[name].push(await measure(urls, download, concurrency));
  }
  const of = (name, key) => summarise(figures[name].map((f) => f[key]));
  const fileKb = figures[ways[0][0]][0].bytes / FILES / 1024;
  const table = markdownTable(['', 'files/s', 'MB/s', 'seconds', 'CPU per file'], ways.map(([name]) => [
    name, minMedian(of(name, 'filesPerS'), 0), minMedian(of(name, 'mbPerS'), 2), minMedian(of(name, 'seconds'), 2), minMedian(of(name, 'cpuPerFileMs'), 2, ' ms'),
  ]));
  publish('downloads-500', [
    { title: `${FILES} downloads of ${fileKb.toFixed(1)} kB each (the sandbox's sample video) over loopback; min / median of ${ROUNDS} (files/s and MB/s: the slowest, then the median)`, table },
  ], { settings: { files: FILES, rounds: ROUNDS, fileBytes: fileKb * 1024 }, figures });
} finally {
  await service.stop();
}
