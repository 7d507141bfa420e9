// "The obvious client": keeps up to C jobs in flight (a new one is created as soon as one is
// downloaded); one timer ticks every 2 s × time scale and reads EACH job in flight with its own
// GET until it is done or failed; a done job's file is then downloaded. No batching, no backoff.
// Usage: node bench/clients/obvious-client.js --jobs N [--kind ai_short|lipsync] [--concurrency 64]
//        [--time-scale X] [--out DIR]
import { clearInterval, setInterval } from 'node:timers';
import { clientOptions, create, download, FINISHED, printSummary, read } from './plain-http.js';

const { kind, jobs, concurrency, pollMs, out } = clientOptions();
const counts = { jobs, done: 0, failed: 0, downloaded: 0, readErrors: 0 };
/** Jobs created and not yet finished: id → { i, reading }. */
const inFlight = new Map();
let started = 0;
let active = 0;
let finish;
const allFinished = new Promise((resolve) => (finish = resolve));

function fill() {
  while (active < concurrency && started < jobs) {
    const i = started++;
    active++;
    create(kind, i).then((job) => inFlight.set(job.id, { i, reading: false }), (error) => {
      console.error(error.message);
      process.exit(1);
    });
  }
}

async function settle(job, i) {
  if (job.status === 'done') {
    counts.done++;
    await download(kind, job, i, out);
    counts.downloaded++;
  } else counts.failed++;
  active--;
  if (counts.done + counts.failed === jobs) finish();
  fill();
}

function tick() {
  for (const [id, entry] of inFlight) {
    if (entry.reading) continue;
    entry.reading = true;
    read(kind, id).then(
      (job) => {
        entry.reading = false;
        if (!FINISHED.has(job.status)) return;
        inFlight.delete(id);
        return settle(job, entry.i);
      },
      () => {
        entry.reading = false;
        counts.readErrors++;
      },
    );
  }
}

const timer = setInterval(tick, pollMs);
fill();
await allFinished;
clearInterval(timer);
printSummary(counts);
