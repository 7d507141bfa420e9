import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { manifestWith, tempTree } from '../manifest/helpers/temp-tree.js';

const short = (style: string, extra: object = {}) => ({ id: 's', kind: 'ai_short', ...extra, with: { script: 'Hello there.', style, aspect_ratio: '9x16' } });
const GOOD = manifestWith([short('3D')], { name: 'one', outputs: 'out' });
const BAD = manifestWith([short('Nope')], { name: 'one' });

/** Runs `reelpipe ARGS` in a fresh folder holding m.yaml; returns the folder too. */
async function cli(manifest: object, args: string[]) {
  const { dir } = tempTree({ 'm.yaml': manifest });
  return { dir, ...(await runCli(args, { cwd: dir })) };
}

describe('validate --json and --quiet', () => {
  test('--json on a valid manifest: one object with its steps and jobs shaped as status --json has them, and its warnings', async () => {
    const result = await cli(GOOD, ['validate', 'm.yaml', '--json']);
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      manifest: join(result.dir, 'm.yaml'), name: 'one', steps: [{ id: 's', kind: 'ai_short', jobs: 1 }], totals: { jobs: 1 }, warnings: [], outcome: 'OK', exitCode: 0, error: null,
    });
  });

  test('--json on an invalid manifest: one object with every problem and its place, and exit 2', async () => {
    const result = await cli(BAD, ['validate', 'm.yaml', '--json']);
    expect(result.exitCode).toBe(2);
    const json = JSON.parse(result.stdout) as { outcome: string; exitCode: number; issues: { file: string; line: number; path: string }[] };
    expect(json).toMatchObject({ manifest: 'm.yaml', outcome: 'INVALID_INPUT', exitCode: 2 });
    expect(json.issues).toContainEqual(expect.objectContaining({ file: 'm.yaml', line: 8, path: 'steps.0.with.style' }));
    expect(result.stderr).toMatch(/^reelpipe: m\.yaml: 1 problem/);
  });

  test('--quiet: the OK line, no warnings', async () => {
    // A priced kind with an estimate: the planner warns that the estimate is ignored.
    const estimated = manifestWith([short('3D', { estimate_credits: { low: 1, expected: 1, high: 1 } })]);
    const loud = await cli(estimated, ['validate', 'm.yaml']);
    const quiet = await cli(estimated, ['validate', 'm.yaml', '--quiet']);
    expect(loud.stderr).toBe('warning: step s: estimate_credits ignored, the spec prices ai_short');
    expect([quiet.exitCode, quiet.stdout, quiet.stderr]).toEqual([0, loud.stdout, '']);
  });
});

describe('plan --quiet and --json', () => {
  test('--quiet: the plan in a line and the budget line', async () => {
    const result = await cli(GOOD, ['plan', 'm.yaml', '--quiet']);
    expect([result.exitCode, result.stdout]).toEqual([0, 'Plan one — 1 job in 1 step\nbudget: none set (expected 5 credits to submit)']);
  });

  test('--json on an invalid manifest: one JSON object with the problems, exit 2', async () => {
    const result = await cli(BAD, ['plan', 'm.yaml', '--json']);
    expect(result.exitCode).toBe(2);
    expect(JSON.parse(result.stdout)).toMatchObject({ manifest: 'm.yaml', outcome: 'INVALID_INPUT', exitCode: 2, issues: [expect.objectContaining({ path: 'steps.0.with.style' })] });
  });

  test('--json over the budget: the plan is the one object, carrying the refusal and its exit code (3), never followed by a second', async () => {
    const result = await cli(GOOD, ['plan', 'm.yaml', '--json', '--max-credits', '1']);
    expect(result.exitCode).toBe(3);
    expect(JSON.parse(result.stdout)).toMatchObject({ name: 'one', stateDb: join(result.dir, 'state', 'reelpipe.db'), totals: { jobs: 1 }, outcome: 'BUDGET_EXCEEDED', exitCode: 3, error: expect.stringContaining('budget') });
  });

  test('--json within the budget: outcome OK, and each job with the credit fields status --json has', async () => {
    const result = await cli(GOOD, ['plan', 'm.yaml', '--json']);
    expect(result.exitCode).toBe(0);
    const json = JSON.parse(result.stdout) as { outcome: string; exitCode: number; jobs: Record<string, unknown>[] };
    expect([json.outcome, json.exitCode]).toEqual(['OK', 0]);
    expect(json.jobs[0]).toMatchObject({ state: 'not submitted', dbStatus: null, creditsEstimated: 5, creditsHigh: 5, creditsUsed: 0 });
  });
});
