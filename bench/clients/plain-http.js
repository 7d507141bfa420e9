// What both baseline clients share: their command line, the service's two calls (create, read)
// and a download, written with nothing but fetch (undici's, as Node's own), as a developer would write them.
// No reelpipe code: the clients stand for what someone writes without reelpipe.
import { Buffer } from 'node:buffer';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { fetch } from 'undici';
import { KINDS } from '../lib/workload.js';

export { sleep };

/** The statuses after which a job changes no more. */
export const FINISHED = new Set(['done', 'failed', 'rejected']);

/** The poll interval both baselines use at the service's own speed (time scale 1). */
const POLL_MS = 2000;

/**
 * `--kind ai_short|lipsync --jobs N --concurrency C --time-scale X --out DIR`; the service from
 * REELPIPE_BASE_URL, REELPIPE_API_ID and REELPIPE_API_KEY, as for reelpipe.
 */
export function clientOptions(argv = process.argv.slice(2)) {
  const { values } = parseArgs({
    args: argv,
    options: {
      kind: { type: 'string', default: 'ai_short' },
      jobs: { type: 'string' },
      concurrency: { type: 'string', default: '64' },
      'time-scale': { type: 'string', default: '1' },
      out: { type: 'string', default: 'out' },
    },
  });
  const kind = KINDS[values.kind];
  if (!kind) throw new Error(`--kind takes ${Object.keys(KINDS).join(' or ')}, got ${values.kind}`);
  mkdirSync(values.out, { recursive: true });
  return {
    kind,
    jobs: Number(values.jobs),
    concurrency: Number(values.concurrency),
    pollMs: POLL_MS * Number(values['time-scale']),
    out: values.out,
  };
}

const base = () => process.env.REELPIPE_BASE_URL;
const headers = () => ({ 'x-api-id': process.env.REELPIPE_API_ID, 'x-api-key': process.env.REELPIPE_API_KEY, 'content-type': 'application/json' });

async function call(method, route, body) {
  const response = await fetch(`${base()}${route}`, { method, headers: headers(), body: body && JSON.stringify(body) });
  if (!response.ok) throw new Error(`${method} ${route} answered ${response.status}: ${await response.text()}`);
  return response.json();
}

/** POST the kind's creation body for job i; resolves with the job as the service answered. */
export const create = (kind, i) => call('POST', kind.path, kind.body(i));

/** GET one job by its id. */
export const read = (kind, id) => call('GET', `${kind.path}${id}/`);

/** Downloads a finished job's output into OUT/SKU-i.mp4. */
export async function download(kind, job, i, out) {
  const response = await fetch(job[kind.output]);
  if (!response.ok) throw new Error(`download of job ${job.id} answered ${response.status}`);
  writeFileSync(path.join(out, `SKU-${i}.mp4`), Buffer.from(await response.arrayBuffer()));
}

/** The one line a client prints at the end: what became of its jobs. */
export function printSummary(counts) {
  console.log(JSON.stringify(counts));
}
