import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { TIME_SCALE, openProject, type Project } from './harness.js';
import { scriptsCsv, shortsManifest } from './shorts-fixture.js';

const LINK = `
  - id: product
    kind: link_with_params
    download: false
    with: { title: Trail Runner 2, image_urls: [https://example.com/tr2.jpg] }
`;

let project: Project;
beforeAll(async () => {
  project = await openProject();
  project.write('scripts.csv', scriptsCsv());
  for (const name of ['json', 'quiet']) project.write(`${name}.yaml`, shortsManifest(name));
  // A link nobody prices, whose cost the service never reports: unknown on both counts.
  project.write('shape.yaml', shortsManifest('shape', { steps: LINK }));
  project.write('refused.yaml', shortsManifest('refused', { top: 'budget: { max_credits: 1 }' }));
});
afterAll(() => project.close());

describe('run --json and --quiet', () => {
  test('--json: stdout is one JSON object, status --json with the outcome, exit code and the run; progress stays on stderr', async () => {
    const run = await project.cli(['run', 'json.yaml', '--json', '--time-scale', TIME_SCALE]);
    expect(run.exitCode, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as Record<string, unknown>;
    const status = JSON.parse((await project.cli(['status', 'json.yaml', '--json'])).stdout) as Record<string, unknown>;
    expect(result).toEqual({
      ...status,
      outcome: 'OK',
      exitCode: 0,
      error: null,
      run: { id: 1, log: expect.stringMatching(/state\/logs\/1\.ndjson$/), report: expect.stringMatching(/out-json\/report\/index\.html$/), elapsedMs: expect.any(Number) },
    });
    expect(run.stderr).toMatch(/· run 1 · /);
  });

  test('--json when the run is refused: still one object, with the outcome and the exit code the process ends with', async () => {
    const run = await project.cli(['run', 'refused.yaml', '--json', '--quiet', '--time-scale', TIME_SCALE]);
    expect(run.exitCode).toBe(3);
    expect(JSON.parse(run.stdout)).toEqual({ manifest: 'refused.yaml', run: null, outcome: 'BUDGET_EXCEEDED', exitCode: 3, error: expect.stringContaining('over the budget of 1') });
    expect(run.stderr).toMatch(/^reelpipe: .*over the budget of 1/);
  });

  test('--quiet: the summary and errors only; no progress at all', async () => {
    const run = await project.cli(['run', 'quiet.yaml', '--quiet', '--time-scale', TIME_SCALE]);
    expect([run.exitCode, run.stderr]).toEqual([0, '']);
    expect(run.stdout).toMatch(/^quiet: 3 jobs — 3 done\n/);
    const again = await project.cli(['retry', 'quiet.yaml', '--quiet', '--json', '--time-scale', TIME_SCALE]);
    expect([again.exitCode, again.stderr]).toEqual([0, '']);
    expect(JSON.parse(again.stdout)).toMatchObject({ outcome: 'OK', exitCode: 0, totals: { jobs: 3, counts: { done: 3 } } });
  });
});

describe('plan --json and status --json', () => {
  test('give steps and totals the same shape: every field status --json has, plan --json has with the same value', async () => {
    const run = await project.cli(['run', 'shape.yaml', '--time-scale', TIME_SCALE]);
    expect(run.exitCode, run.stderr).toBe(0);
    type Totals = Record<string, unknown>;
    const status = JSON.parse((await project.cli(['status', 'shape.yaml', '--json'])).stdout) as { steps: Totals[]; totals: Totals };
    const plan = JSON.parse((await project.cli(['plan', 'shape.yaml', '--json'])).stdout) as { steps: Totals[]; totals: Totals };
    expect(status.totals).toEqual({
      jobs: 4, counts: { done: 4 }, creditsEstimated: 15, creditsUsed: 15, unknownEstimates: 1, unknownUsed: 1, overHighEstimate: 0,
      creditsApart: { superseded: 0, removed: 0, forgotten: 0 }, refunded: { total: 0, derived: 0 },
    });
    expect(plan.totals).toEqual({ ...status.totals, creditsLow: 15, creditsHigh: 15 });
    expect(plan.steps).toHaveLength(status.steps.length);
    status.steps.forEach((step, i) => expect(plan.steps[i]).toMatchObject(step));
    // The plan's own facts, beside them.
    expect(plan.steps.map((s) => [s.id, s.creditsLow, s.creditsHigh, s.needs, s.download])).toEqual([['shorts', 15, 15, [], true], ['product', null, null, [], false]]);
  });
});
