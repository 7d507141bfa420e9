// The clients a benchmark measures side by side. Each prepares its command in a fresh folder:
// node arguments, run from that folder, writing its files into FOLDER/out.
import { fileURLToPath } from 'node:url';
import { freePort } from '../chaos/sandbox-process.js';
import { CLI_NODE_ARGS } from './service.js';
import { writeManifest } from './workload.js';

const client = (file) => fileURLToPath(new URL(`../clients/${file}`, import.meta.url));

/**
 * reelpipe's own CLI, `reelpipe run bench.yaml --time-scale X --rate RATE` (`rate: null`: no
 * --rate flag, reelpipe's default), with `webhooks` a receiver on a free loopback port, and with
 * `state` (a location, or a function making one per run) `--state STATE`; without it the default
 * SQLite file, FOLDER/state/reelpipe.db.
 */
export function reelpipe(name, { rate = 1000, webhooks = false, state } = {}) {
  return {
    name,
    async prepare({ dir, kind, jobs, concurrency, timeScale }) {
      const manifest = writeManifest(dir, { kind, jobs, concurrency });
      const args = [...CLI_NODE_ARGS, 'run', manifest, '--time-scale', String(timeScale)];
      if (state !== undefined) args.push('--state', typeof state === 'function' ? await state() : state);
      if (rate !== null) args.push('--rate', String(rate));
      if (webhooks) {
        const port = await freePort();
        args.push('--webhook-listen', `127.0.0.1:${port}`, '--webhook-public-url', `http://127.0.0.1:${port}`);
      }
      return args;
    },
  };
}

/** A baseline script of bench/clients/ (no reelpipe code). */
function baseline(name, file) {
  return {
    name,
    prepare: async ({ kind, jobs, concurrency, timeScale }) =>
      [client(file), '--kind', kind, '--jobs', String(jobs), '--concurrency', String(concurrency), '--time-scale', String(timeScale), '--out', 'out'],
  };
}

export const obviousClient = () => baseline('obvious client', 'obvious-client.js');
export const sdkPattern = () => baseline('community SDK', 'sdk-pattern.js');
