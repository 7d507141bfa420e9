import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { readManifestId } from '../../src/manifest/index.js';
import { acquireLock, openStore } from '../../src/state/index.js';
import { CHAIN_MANIFEST } from '../helpers/chain-manifest.js';
import { startScriptedServer, type ScriptedServer } from '../helpers/scripted-server.js';
import { openProject, TIME_SCALE, type Project } from './harness.js';

let project: Project | undefined;
let service: ScriptedServer | undefined;
afterEach(async () => {
  await service?.close();
  await project?.close();
  project = service = undefined;
});

const SHORT = `
version: 1
name: one
outputs: out
steps:
  - id: s
    kind: ai_short
    with: { script: "Every trail starts with one step.", style: 3D, aspect_ratio: 9x16 }
`;
const ROWS = `
version: 1
name: rows
outputs: out
steps:
  - id: s
    kind: ai_short
    for_each: { csv: rows.csv }
    with: { script: "{{ row.script }}", style: 3D, aspect_ratio: 9x16 }
`;
const ADS = `
version: 1
name: playables
outputs: out
steps:
  - id: ads
    kind: html_ads
    with: { link: 3f2a6c1e-8b4d-4e7f-9a1b-2c3d4e5f6a7b, style_ids: [quiz-3q] }
`;

interface ListedRun { state: string; outcome: string | null; exitCode: number | null; refusal: string | null }
interface Listed { total: number; refusedHidden: number; runs: ListedRun[] }

/** `reelpipe runs m.yaml --json`, with `--all` or without. */
async function runsOf(p: Project, ...flags: string[]): Promise<Listed> {
  const listed = await p.cli(['runs', 'm.yaml', '--json', ...flags]);
  expect(listed.exitCode, listed.stderr).toBe(0);
  return JSON.parse(listed.stdout) as Listed;
}

/** Holds m.yaml's lock as a live run of this process would. */
async function holdLock(p: Project): Promise<() => Promise<void>> {
  const store = await openStore(join(p.dir, 'state', 'reelpipe.db'));
  const lock = await acquireLock(store, { name: (await readManifestId(join(p.dir, 'm.yaml')))! });
  return async () => {
    await lock.release();
    await store.close();
  };
}

/** A service whose live style list no longer offers quiz-3q (the snapshot `validate` checks against still does). */
async function withoutQuiz(): Promise<Record<string, string>> {
  service = await startScriptedServer();
  service.script('GET', '/api/html_interactive_ads/styles/', { status: 200, json: [{ id: 'spin-wheel', name: 'Spin the Wheel', type: 'game', interactive: true, thumbnail_url: null }] });
  return { REELPIPE_BASE_URL: service.url };
}

interface SetUp { env?: Record<string, string>; args?: string[]; undo?: () => Promise<void> }

/** Each refusal: the manifest, what is set up first (the environment and flags to run with, what to undo), the exit code, outcome and recorded line. */
const REFUSALS: [string, string, (p: Project) => Promise<SetUp>, number, string, RegExp][] = [
  ['another run holds the lock', SHORT, async (p) => ({ undo: await holdLock(p) }), 75, 'LOCKED', /^another run \(pid \d+ on .+\) is working on one; try again when it has finished$/],
  ['the credentials are missing', SHORT, async () => ({ env: { REELPIPE_API_KEY: '' } }), 2, 'MISSING_CONFIG', /^REELPIPE_API_KEY is not set: the account API key/],
  ['the manifest does not validate', SHORT.replace('style: 3D', 'style: Watercolour'), async () => ({}), 2, 'INVALID_INPUT', /^m\.yaml: 1 problem$/],
  ['its data file does not validate', ROWS, async (p) => (p.write('rows.csv', 'sku,script\nTR-1,"Every trail starts here."\nTR-2\n'), {}), 2, 'INVALID_INPUT', /^m\.yaml: 1 problem$/],
  ['the live style check fails', ADS, async () => ({ env: await withoutQuiz() }), 2, 'INVALID_INPUT', /^playables: HTML ad styles the service does not offer; nothing was submitted$/],
  ['a --step is refused', CHAIN_MANIFEST, async () => ({ args: ['--step', 'final'] }), 2, 'USAGE', /^step final needs jobs of step teasers that are not finished: add --step teasers to run it too \(nothing was submitted\)$/],
  ['the budget gate refuses', SHORT.replace('outputs: out', 'outputs: out\nbudget: { max_credits: 1 }'), async () => ({}), 3, 'BUDGET_EXCEEDED', /^plan one expects 5 credits for the 1 job still to submit \(low 5, high 5\), over the budget of 1 by 4\. Nothing was submitted/],
];

describe('a refused start', () => {
  test.each(REFUSALS)('when %s: said on the terminal, recorded as refused, hidden from runs but by --all', async (_, manifest, setUp, exit, outcome, refusal) => {
    project = await openProject();
    // The project's state database exists: another manifest ran in it.
    project.write('first.yaml', SHORT.replace('name: one', 'name: first'));
    expect((await project.cli(['run', 'first.yaml', '--time-scale', TIME_SCALE])).exitCode).toBe(0);
    project.write('m.yaml', manifest);
    const { env, args = [], undo } = await setUp(project);
    const refused = await project.cli(['run', 'm.yaml', '--time-scale', TIME_SCALE, ...args], env).finally(() => undo?.());
    expect(refused.exitCode, refused.stderr).toBe(exit);
    // Said as before: the line recorded is the first of the message on the terminal.
    expect(refused.stderr).toMatch(new RegExp(`reelpipe: ${refusal.source.slice(1)}`, 'm'));

    expect(await runsOf(project)).toEqual({ manifest: expect.any(String), stateDb: expect.any(String), total: 0, refusedHidden: 1, runs: [] });
    const all = await runsOf(project, '--all');
    expect(all).toMatchObject({ total: 1, refusedHidden: 0, runs: [{ state: 'refused', outcome, exitCode: exit, refusal: expect.stringMatching(refusal) }] });
    const text = await project.cli(['runs', 'm.yaml']);
    expect(text.stdout.split('\n')[0]).toMatch(/: no runs yet \(1 refused start hidden: --all shows them\)$/);
    const rows = (await project.cli(['runs', 'm.yaml', '--all'])).stdout.split('\n');
    expect(rows[0]).toMatch(/: 1 run$/);
    expect(rows[2]).toMatch(new RegExp(`^\\d+ +\\S+ +\\S+ +refused +${outcome} +${exit} +\\S+ +${refusal.source.slice(1)}`));
  });

  test('beside the runs that started: counted in the header, listed by --all in their place', async () => {
    project = await openProject();
    project.write('m.yaml', SHORT);
    expect((await project.cli(['run', 'm.yaml', '--time-scale', TIME_SCALE])).exitCode).toBe(0);
    const release = await holdLock(project);
    const locked = await project.cli(['run', 'm.yaml', '--time-scale', TIME_SCALE]).finally(release);
    expect(locked.exitCode).toBe(75);
    expect((await project.cli(['run', 'm.yaml', '--time-scale', TIME_SCALE])).exitCode).toBe(0);

    expect((await project.cli(['runs', 'm.yaml'])).stdout.split('\n')[0]).toMatch(/: 2 runs \(1 refused start hidden: --all shows them\)$/);
    expect((await runsOf(project)).runs.map((r) => r.outcome)).toEqual(['OK', 'OK']);
    expect((await runsOf(project, '--all')).runs.map((r) => [r.state, r.outcome])).toEqual([['finished', 'OK'], ['refused', 'LOCKED'], ['finished', 'OK']]);
  });

  test('logs and report read the newest run that started, not a refused start after it', async () => {
    project = await openProject();
    project.write('m.yaml', SHORT);
    expect((await project.cli(['run', 'm.yaml', '--time-scale', TIME_SCALE])).exitCode).toBe(0);
    project.write('m.yaml', SHORT.replace('style: 3D', 'style: Watercolour'));
    expect((await project.cli(['run', 'm.yaml', '--time-scale', TIME_SCALE])).exitCode).toBe(2);
    const logs = await project.cli(['logs', 'm.yaml']);
    expect(logs.stderr).toBe('');
    expect(logs.stdout).toMatch(/run finished \{"outcome":"OK"\}$/m);
    project.write('m.yaml', SHORT);
    expect((await project.cli(['report', 'm.yaml'])).exitCode).toBe(0);
    const results = JSON.parse(readFileSync(join(project.dir, 'out', 'report', 'results.json'), 'utf8')) as { run: { id: number; outcome: string } };
    expect(results.run).toMatchObject({ id: 1, outcome: 'OK' });
  });

  test('invalid input with no state database yet records nothing, and makes no database to say so', async () => {
    project = await openProject();
    project.write('m.yaml', SHORT.replace('style: 3D', 'style: Watercolour'));
    const refused = await project.cli(['run', 'm.yaml', '--time-scale', TIME_SCALE]);
    expect(refused.exitCode).toBe(2);
    expect(existsSync(join(project.dir, 'state'))).toBe(false);
  });

  test('a path that names no manifest records nothing', async () => {
    project = await openProject();
    project.write('first.yaml', SHORT);
    expect((await project.cli(['run', 'first.yaml', '--time-scale', TIME_SCALE])).exitCode).toBe(0);
    const missing = await project.cli(['run', 'nightly.yaml', '--time-scale', TIME_SCALE]);
    expect([missing.exitCode, missing.stderr]).toEqual([2, 'reelpipe: nightly.yaml: 1 problem\nnightly.yaml  manifest not found']);
    expect(project.query<{ manifest: string }>('SELECT manifest FROM runs').map((r) => r.manifest)).toEqual(['one']);
  });

  test('its recorded line never holds a credential, even where the message does', async () => {
    project = await openProject();
    project.write('first.yaml', SHORT);
    expect((await project.cli(['run', 'first.yaml', '--time-scale', TIME_SCALE])).exitCode).toBe(0);
    // A manifest named after the key: its message's first line names the file.
    project.write('e2e-api-key-secret.yaml', SHORT.replace('style: 3D', 'style: Watercolour'));
    const refused = await project.cli(['run', 'e2e-api-key-secret.yaml', '--time-scale', TIME_SCALE]);
    expect(refused.exitCode).toBe(2);
    expect(project.query<{ refusal: string | null }>('SELECT refusal FROM runs WHERE refusal IS NOT NULL')).toEqual([{ refusal: '[REDACTED].yaml: 1 problem' }]);
  });
});
