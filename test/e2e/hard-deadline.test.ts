import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startScriptedServer, type ScriptedServer } from '../helpers/scripted-server.js';

const ID = '11111111-2222-4333-8444-555555555555';
let dir: string;
let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('--max-wait is a hard bound', () => {
  test('a service that trickles one byte at a time cannot keep the run past --max-wait: it exits 4 (never killed by the test\'s own timeout)', async () => {
    dir = mkdtempSync(join(tmpdir(), 'reelpipe-deadline-'));
    server = await startScriptedServer();
    server.script('POST', '/api/ai_shorts/', { status: 201, json: { id: ID, status: 'pending' } });
    // Every read answers 200 and then sends one space every 400 ms, forever.
    const trickle = { stream: { status: 200, chunk: ' ', count: Infinity, everyMs: 400 } };
    server.script('GET', '/api/ai_shorts/', ...Array.from({ length: 10 }, () => trickle));
    server.script('GET', `/api/ai_shorts/${ID}/`, ...Array.from({ length: 10 }, () => trickle));
    writeFileSync(join(dir, 'm.yaml'), `
version: 1
name: slow
outputs: out
steps:
  - id: s
    kind: ai_short
    with: { script: "Hello there.", style: 3D, aspect_ratio: 9x16 }
`);
    const env = { REELPIPE_BASE_URL: server.url, REELPIPE_API_ID: 'test-id-1', REELPIPE_API_KEY: 'test-key-1' };
    // The client's own per-attempt deadline is 60 s: only cutting the read at --max-wait ends the
    // run before this test's 20 s timeout kills it.
    const run = await runCli(['run', 'm.yaml', '--max-wait', '2s', '--time-scale', '0.001'], { cwd: dir, env, timeout: 20_000 });
    expect(run.signal, run.stderr).toBeUndefined();
    expect(run.exitCode, run.stderr).toBe(4);
    expect(run.stderr).toMatch(/--max-wait of 2s reached; 1 job left \(1 still rendering at the service\)/);
  }, 30_000);
});
