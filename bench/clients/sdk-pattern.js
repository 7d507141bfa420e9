// "The community SDK pattern": one `await createAndWait(job)` per job (create, then sleep 2 s ×
// time scale and GET, until finished), C of them at a time through a promise pool, then the
// file's download. No batching.
// Usage: node bench/clients/sdk-pattern.js --jobs N [--kind ai_short|lipsync] [--concurrency 64]
//        [--time-scale X] [--out DIR]
import { clientOptions, create, download, FINISHED, printSummary, read, sleep } from './plain-http.js';

const { kind, jobs, concurrency, pollMs, out } = clientOptions();
const counts = { jobs, done: 0, failed: 0, downloaded: 0 };

async function createAndWait(i) {
  let job = await create(kind, i);
  while (!FINISHED.has(job.status)) {
    await sleep(pollMs);
    job = await read(kind, job.id);
  }
  return job;
}

/** Runs `task(i)` for i in [0, n), at most `size` at a time. */
async function promisePool(n, size, task) {
  let next = 0;
  const worker = async () => {
    while (next < n) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(size, n) }, worker));
}

await promisePool(jobs, concurrency, async (i) => {
  const job = await createAndWait(i);
  if (job.status !== 'done') return void counts.failed++;
  counts.done++;
  await download(kind, job, i, out);
  counts.downloaded++;
});
printSummary(counts);
