// The soak's service: `reelpipe sandbox` as its own process, on a journal and a port fixed for
// the whole soak (output URLs the runner recorded stay valid across restarts), so it can be
// SIGKILLed and started again with every job, id and charge it had.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fetch } from 'undici';

/** A free loopback port, chosen once by the system and then reused by every restart. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts `reelpipe sandbox` and resolves with { child, url } at its listening line. A port just
 * released by a killed sandbox can be refused for a moment: the start is tried again briefly.
 */
export async function startSandboxProcess(cli, { port, speed, capacity, credits, seed, faults, journal, cwd }) {
  const args = [cli, 'sandbox', '--port', String(port), '--speed', String(speed), '--capacity', String(capacity),
    '--credits', String(credits), '--seed', String(seed), '--faults', faults, '--journal', journal];
  let lastError;
  for (let attempt = 0; attempt < 20; attempt++) {
    try {
      return await spawnUntilListening(args, cwd);
    } catch (error) {
      lastError = error;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  throw new Error(`the sandbox did not start on port ${port}: ${lastError?.message}`);
}

function spawnUntilListening(args, cwd) {
  const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr.on('data', (chunk) => (err = (err + chunk).slice(-4000)));
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = /sandbox listening on (\S+)/.exec(out);
      if (match) resolve({ child, url: match[1] });
    });
    child.once('exit', (code, signal) => reject(new Error(`sandbox exited (${code ?? signal}) before listening: ${err.trim().slice(-800)}`)));
  });
}

/** SIGKILLs a sandbox process and waits until it is gone (its port and journal free). */
export function killProcess(child, signal = 'SIGKILL') {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const gone = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  return gone;
}

/** GET a /__sandbox/ introspection path as JSON. */
export async function introspect(url, what) {
  const response = await fetch(`${url}/__sandbox/${what}`);
  if (response.status !== 200) throw new Error(`GET /__sandbox/${what} answered ${response.status}`);
  return response.json();
}

/** Makes the link ad clones and HTML ads need, with credentials the sandbox accepts. */
export async function createLink(url) {
  const response = await fetch(`${url}/api/links/link_with_params/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-id': 'chaos-id', 'x-api-key': 'chaos-key' },
    body: JSON.stringify({ title: 'Trail Runner 2', image_urls: ['https://example.com/img/tr2-side.jpg'] }),
  });
  if (response.status !== 201 && response.status !== 200) throw new Error(`creating the link answered ${response.status}: ${await response.text()}`);
  return (await response.json()).id;
}
