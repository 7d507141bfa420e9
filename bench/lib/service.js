// The service every client of a benchmark talks to: `reelpipe sandbox` as a separate process,
// started fresh for each measured run (its counters and its job list are then that run's alone),
// with seeded ids and fixed durations and capacity. No journal: the service keeps its jobs in
// memory, as in the measurements.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { fetch } from 'undici';

export const CLI = fileURLToPath(new URL('../../bin/reelpipe.js', import.meta.url));

/**
 * `node` arguments that run the CLI as its launcher does when a user runs `reelpipe`: the node
 * options on its shebang (`#!/usr/bin/env -S node OPTIONS`), then the launcher itself.
 */
export const CLI_NODE_ARGS = [...(/^#!.*\bnode\b(.*)$/m.exec(readFileSync(CLI, 'utf8').split('\n')[0])?.[1].trim().split(/\s+/).filter(Boolean) ?? []), CLI];

/** Enough credits that no benchmark ever runs short. */
const CREDITS = 100_000_000;

/**
 * Starts `reelpipe sandbox --port 0 --speed SPEED --capacity CAPACITY --seed SEED` and resolves
 * once it prints its listening line, with its url, stats(), jobs() and stop().
 */
export async function startService({ speed, capacity, seed = 1 }) {
  const args = [CLI, 'sandbox', '--port', '0', '--speed', String(speed), '--capacity', String(capacity), '--credits', String(CREDITS), '--seed', String(seed)];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  const url = await new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      const match = /^sandbox listening on (\S+)$/.exec(line);
      if (match) resolve(match[1]);
    });
    exited.then((how) => reject(new Error(`the sandbox exited (${how}) before listening: ${args.slice(1).join(' ')}`)));
  });
  const get = async (route) => {
    const response = await fetch(`${url}${route}`);
    if (!response.ok) throw new Error(`${route} answered ${response.status}`);
    return response.json();
  };
  return {
    url,
    stats: () => get('/__sandbox/stats'),
    jobs: () => get('/__sandbox/jobs'),
    /** SIGTERM; resolves once the process is gone. */
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The environment a client gets: the service's URL and a key pair the sandbox accepts. */
export function clientEnv(url) {
  return { ...process.env, REELPIPE_BASE_URL: url, REELPIPE_API_ID: 'bench-id', REELPIPE_API_KEY: 'bench-key', REELPIPE_LOG_LEVEL: 'warn' };
}
