import { join } from 'node:path';
import { expect, test } from 'vitest';
import { REPO_ROOT, runCli } from '../helpers/cli.js';

/**
 * REELPIPE_STATE names the state of every command that takes --state, unless --state is typed; a
 * sandbox's runs never take it (a rehearsal's made-up jobs stay out of the real state).
 */
const manifest = join(REPO_ROOT, 'examples', 'demo.yaml');
const runs = (args: string[], env: Record<string, string>) => runCli(['runs', manifest, ...args], { env: { ...process.env, ...env } });
const stateOf = (stdout: string) => /\(state (.*)\):/.exec(stdout)?.[1];

test('REELPIPE_STATE is the state when --state is not given', async () => {
  const result = await runs([], { REELPIPE_STATE: '/tmp/reelpipe-env-state.db' });
  expect(stateOf(result.stdout)).toBe('/tmp/reelpipe-env-state.db');
});

test('--state typed on the command line wins over REELPIPE_STATE', async () => {
  const result = await runs(['--state', '/tmp/reelpipe-typed.db'], { REELPIPE_STATE: '/tmp/reelpipe-env-state.db' });
  expect(stateOf(result.stdout)).toBe('/tmp/reelpipe-typed.db');
});

test.each([['--sandbox'], ['--sandbox-url', 'http://127.0.0.1:7711']])('beside %s, REELPIPE_STATE is ignored: the sandbox keeps its own state', async (...flags) => {
  const result = await runs(flags, { REELPIPE_STATE: '/tmp/reelpipe-env-state.db' });
  expect(stateOf(result.stdout)).toMatch(/state\/sandbox(-127\.0\.0\.1-7711)?\.db$/);
});

test('an address in REELPIPE_STATE is shown without its password; a malformed one is exit 2', async () => {
  const bad = await runs([], { REELPIPE_STATE: 'postgres://reelpipe:s3cret@db.example.com:99x/reelpipe' });
  expect(bad.exitCode).toBe(2);
  expect(bad.stderr).toMatch(/REELPIPE_STATE: a PostgreSQL state address was given, but/);
  expect(bad.stderr).not.toContain('s3cret');
});
