import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { freePort } from '../helpers/free-port.js';
import { startScriptedServer, type ScriptedServer } from '../helpers/scripted-server.js';
import { openProject, SPEED, type Project } from './harness.js';

/**
 * `--sandbox-url URL`: a rehearsal against a standalone sandbox (`reelpipe sandbox`, here one
 * started in-process on port 0). Its jobs are made at that sandbox, its outputs go to
 * OUTPUTS.sandbox and its state to state/sandbox-HOST-PORT.db, never the real ones; an address
 * that is no sandbox is refused before anything is sent (needs `npm run build`).
 */
const MANIFEST = `
version: 1
name: rehearsal
outputs: out/rehearsal
steps:
  - id: shorts
    kind: ai_short
    for_each: { rows: [{ t: "Spring is here." }, { t: "Light jackets, bright days." }] }
    with: { script: "{{ row.t }}", style: 3D, aspect_ratio: 9x16 }
`;

/** The state file a rehearsal against `url` keeps, in the project. */
const stateOf = (project: Project, url: string) => join(project.dir, 'state', `sandbox-127.0.0.1-${new URL(url).port}.db`);

describe('run --sandbox-url: the jobs, outputs and state of a standalone sandbox', () => {
  let project: Project;
  /** Where REELPIPE_BASE_URL points: --sandbox-url must never send anything there. */
  let elsewhere: ScriptedServer;
  beforeAll(async () => {
    project = await openProject();
    elsewhere = await startScriptedServer();
    project.write('rehearsal.yaml', MANIFEST);
  });
  afterAll(async () => {
    await elsewhere.close();
    await project.close();
  });

  test('run: jobs made at that sandbox, files in OUTPUTS.sandbox, state in its own file; a second run makes nothing', async () => {
    const url = project.sandbox.url;
    const run = await project.cli(['run', 'rehearsal.yaml', '--sandbox-url', url], { REELPIPE_BASE_URL: elsewhere.url });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(project.sandbox.stats().created).toEqual({ ai_short: 2 });
    // Its waits follow the speed the sandbox reports, read once at start.
    expect(run.stderr).toContain(`sandbox: ${url} (speed ${SPEED}): every wait of this run × 1/${SPEED}`);
    expect((readdirSync(join(project.dir, 'out', 'rehearsal.sandbox'), { recursive: true }) as string[]).filter((f) => f.endsWith('.mp4'))).toHaveLength(2);
    expect(existsSync(join(project.dir, 'out', 'rehearsal'))).toBe(false);
    expect(readdirSync(join(project.dir, 'state')).filter((f) => f.endsWith('.db'))).toEqual([`sandbox-127.0.0.1-${project.sandbox.port}.db`]);
    expect(project.queryAt<{ status: string }>(stateOf(project, url), 'SELECT status FROM jobs')).toEqual([{ status: 'downloaded' }, { status: 'downloaded' }]);
    expect(elsewhere.requests).toEqual([]);

    const again = await project.cli(['run', 'rehearsal.yaml', '--sandbox-url', url]);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(project.sandbox.stats().created).toEqual({ ai_short: 2 });
    expect(project.sandbox.stats().duplicates.total).toBe(0);
  });

  test.each([
    ['status', ['status', 'rehearsal.yaml'], (state: string) => [`(state ${state})`, '2 done']],
    ['plan', ['plan', 'rehearsal.yaml'], (state: string) => [`state: ${state}`, 'out/rehearsal.sandbox', '2 done']],
    ['runs', ['runs', 'rehearsal.yaml'], (state: string) => [`(state ${state}): 2 runs`]],
    ['catalogue', ['catalogue', 'styles'], () => ['styles from the sandbox at http://127.0.0.1:']],
  ] as const)('%s --sandbox-url reads the rehearsal (run first)', async (_name, args, expected) => {
    const url = project.sandbox.url;
    const result = await project.cli([...args, '--sandbox-url', url]);
    expect(result.exitCode, result.stderr).toBe(0);
    for (const text of expected(stateOf(project, url))) expect(result.stdout).toContain(text);
  });
});

describe('run --sandbox-url: credentials', () => {
  let project: Project;
  beforeAll(async () => {
    // The harness's own pair: a sandbox started with --api-id/--api-key accepts only it.
    project = await openProject({ apiId: 'e2e-api-id', apiKey: 'e2e-api-key-secret' });
    project.write('rehearsal.yaml', MANIFEST);
  });
  afterAll(() => project.close());

  test('REELPIPE_API_ID and REELPIPE_API_KEY are sent when set; without them the stand-ins are, which such a sandbox refuses (exit 2)', async () => {
    const without = await project.cli(['run', 'rehearsal.yaml', '--sandbox-url', project.sandbox.url], { REELPIPE_API_ID: '', REELPIPE_API_KEY: '' });
    expect(without.exitCode, without.stderr).toBe(2);
    expect(project.sandbox.stats().created).toEqual({});
    const run = await project.cli(['run', 'rehearsal.yaml', '--sandbox-url', project.sandbox.url]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).not.toContain('e2e-api-key-secret');
    expect(project.sandbox.stats().created).toEqual({ ai_short: 2 });
  });
});

describe('run --sandbox-url: an address that is no sandbox is refused, nothing sent', () => {
  let project: Project;
  let server: ScriptedServer;
  beforeAll(async () => {
    project = await openProject();
    project.write('rehearsal.yaml', MANIFEST);
    server = await startScriptedServer();
  });
  afterEach(() => server.reset());
  afterAll(async () => {
    await server.close();
    await project.close();
  });

  test('a server that does not answer /__sandbox/stats: exit 2 naming the address; only the probe reached it', async () => {
    server.script('GET', '/__sandbox/stats', { status: 404, json: { detail: 'Not found.' } });
    const run = await project.cli(['run', 'rehearsal.yaml', '--sandbox-url', server.url]);
    expect(run.exitCode, run.stderr).toBe(2);
    expect(run.stderr).toContain(`--sandbox-url ${server.url}: not a reelpipe sandbox: GET /__sandbox/stats answered 404`);
    expect(run.stderr).toContain('Nothing was sent.');
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /__sandbox/stats']);
    expect(existsSync(join(project.dir, 'out'))).toBe(false);
  });

  test('JSON that is not a sandbox\'s stats: refused the same way', async () => {
    server.script('GET', '/__sandbox/stats', { status: 200, json: { ok: true } });
    const run = await project.cli(['run', 'rehearsal.yaml', '--sandbox-url', server.url]);
    expect(run.exitCode, run.stderr).toBe(2);
    expect(run.stderr).toContain(`--sandbox-url ${server.url}: not a reelpipe sandbox`);
    expect(server.requests).toHaveLength(1);
  });

  test('nothing listening: exit 2, saying to start the sandbox first', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const run = await project.cli(['run', 'rehearsal.yaml', '--sandbox-url', url]);
    expect(run.exitCode, run.stderr).toBe(2);
    expect(run.stderr).toContain(`--sandbox-url ${url}: no answer there (ECONNREFUSED); start the sandbox first`);
  });

  test.each([
    ['not an address', 'nowhere', '--sandbox-url nowhere: not an address'],
    ['not http', 'ftp://127.0.0.1:7711', '--sandbox-url ftp://127.0.0.1:7711: ftp: is not http or https'],
    ['a path', 'http://127.0.0.1:7711/api', 'a sandbox serves at its root, so the address takes no path, query or fragment'],
    ['a user and password (never echoed)', 'http://me:hunter2@127.0.0.1:7711', '--sandbox-url: an address with a user or password is refused'],
  ])('a bad address (%s): exit 2 naming the flag and what it takes', async (_name, url, message) => {
    const result = await project.cli(['status', 'rehearsal.yaml', '--sandbox-url', url]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stderr).toContain('http://HOST:PORT');
    expect(result.stderr).not.toContain('hunter2');
  });

  test('--sandbox with --sandbox-url: a usage error naming both', async () => {
    const result = await project.cli(['run', 'rehearsal.yaml', '--sandbox', '--sandbox-url', project.sandbox.url]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("option '--sandbox-url <url>' cannot be used with option '--sandbox'");
    expect(project.sandbox.stats().created).toEqual({});
  });
});
