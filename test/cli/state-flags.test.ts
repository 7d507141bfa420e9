import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runCli } from '../helpers/cli.js';

/**
 * `--sandbox --state PATH` means the same in every command: the sandbox's runs, kept in PATH. A
 * trial run with both is then planned, reported and inspected with the very same flags (needs
 * `npm run build`; the run uses the embedded sandbox, on loopback).
 */
const MANIFEST = `
version: 1
name: trial
outputs: out/trial
steps:
  - id: shorts
    kind: ai_short
    for_each: { rows: [{ t: "Spring is here." }, { t: "Light jackets, bright days." }] }
    name: "short-{{ row.t }}"
    with: { script: "{{ row.t }}", style: 3D, aspect_ratio: 9x16 }
`;

let dir: string;
let trial: string;
const BOTH = ['--sandbox', '--state', 'trial.db'];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'reelpipe-state-flags-'));
  writeFileSync(join(dir, 'package.json'), '{ "private": true }\n');
  writeFileSync(join(dir, 'trial.yaml'), MANIFEST);
  trial = join(dir, 'trial.db');
  const run = await runCli(['run', 'trial.yaml', ...BOTH, '--sandbox-speed', '100000'], { cwd: dir, timeout: 60_000 });
  expect(run.exitCode, run.stderr).toBe(0);
}, 90_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const contains = (...texts: string[]) => (out: string) => {
  for (const text of texts) expect(out).toContain(text);
};

describe('--sandbox with --state: every command takes both, and reads the sandbox runs kept in PATH', () => {
  test.each([
    ['plan', ['plan', 'trial.yaml'], () => contains(`state: ${trial}`, '2 done')],
    ['plan --json', ['plan', 'trial.yaml', '--json'], () => (out: string) => expect(JSON.parse(out)).toMatchObject({ stateDb: trial })],
    ['status', ['status', 'trial.yaml'], () => contains(`(state ${trial})`, '2 done')],
    ['runs', ['runs', 'trial.yaml'], () => contains(`(state ${trial}): 1 run`)],
    ['doubt --json', ['doubt', 'trial.yaml', '--json'], () => (out: string) => expect(JSON.parse(out)).toMatchObject({ state: trial, jobs: [] })],
    ['report', ['report', 'trial.yaml'], () => contains(`report: ${join(dir, 'out', 'trial.sandbox', 'report', 'index.html')}`)],
    ['logs', ['logs', 'trial.yaml'], () => contains('run finished {"outcome":"OK"}')],
  ] as const)('%s', async (_name, args, check) => {
    const result = await runCli([...args, ...BOTH], { cwd: dir });
    expect(result.exitCode, result.stderr).toBe(0);
    check()(result.stdout);
    // The sandbox's default database was never made: --state chose the database. (Its runs' logs
    // and the sandbox's journal are kept in the project's state/ folder, named for trial.db.)
    expect(existsSync(join(dir, 'state', 'sandbox.db'))).toBe(false);
    expect(existsSync(join(dir, 'state', 'reelpipe.db'))).toBe(false);
    expect(existsSync(join(dir, 'state', 'logs', 'trial-1.ndjson'))).toBe(true);
  });
});
