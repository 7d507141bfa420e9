import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { REPO_ROOT, runCli } from '../helpers/cli.js';

/**
 * validate, plan and schema load the manifest schemas, the planner and SQLite inside their
 * actions, so `reelpipe --help` and other commands start without them (needs `npm run build`).
 */
const staticImports = (file: string) =>
  [...readFileSync(path.join(REPO_ROOT, 'dist/cli/commands', file), 'utf8').matchAll(/^import\s[^;]*?from\s+'([^']+)'/gm)].map((m) => m[1]);

describe('command modules', () => {
  // output-flags.js (--quiet, --json) is light itself: errors and exit codes only; target.js loads its
  // planner and state modules inside its functions.
  test.each(['validate.js', 'plan.js', 'schema.js', 'output-flags.js'])('%s imports nothing heavy at load time', (file) => {
    expect(staticImports(file).filter((spec) => !['node:fs', '../../errors.js', './output-flags.js', '../exit-codes.js', '../state-flags.js', './target.js'].includes(spec ?? ''))).toEqual([]);
  });
});

describe('reelpipe plan flags', () => {
  test('--sandbox alone reads the sandbox state (none yet: every job is new)', async () => {
    const result = await runCli(['plan', 'examples/demo.yaml', '--sandbox'], { cwd: REPO_ROOT });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('Plan demo — 9 jobs in 5 steps');
  });
});
