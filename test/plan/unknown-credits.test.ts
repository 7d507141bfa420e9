import { describe, expect, test } from 'vitest';
import { assertBudget, budgetView, planManifest, planToJson, renderPlanTable } from '../../src/plan/index.js';
import { runCli } from '../helpers/cli.js';
import { load, manifestWith, tempTree } from '../manifest/helpers/temp-tree.js';

/** Unknown is never 0: steps and plans nobody can price show as unknown, in JSON and in the table. */
const link = { id: 'product', kind: 'link_with_params', with: { title: 'T', image_urls: ['https://example.com/i.png'] } };
const clone = { id: 'clone', kind: 'ad_clone', with: { link: '{{ steps.product.id }}', video_url: 'https://example.com/ad.mp4' } };
const planOf = async (steps: object[], extra: object = {}) => planManifest(await load({ 'manifest.yaml': manifestWith(steps, extra) }));

describe('a plan whose every job is of unknown cost', () => {
  test('has null credits per step and in total, and still counts the unknown jobs', async () => {
    const p = await planOf([link, clone]);
    expect(p.steps.map((s) => [s.id, s.credits, s.unknownJobs])).toEqual([['product', null, 1], ['clone', null, 1]]);
    expect(p.totals).toEqual({ jobs: 2, credits: null, unknownJobs: 2 });
  });

  test('shows ? for every figure, and under a cap refuses the plan, as the run would be refused', async () => {
    const p = await planOf([link], { budget: { max_credits: 10 } });
    expect(renderPlanTable(p).replace(p.outputsDir, 'OUT').split('\n')).toEqual([
      'Plan test — 1 job in 1 step',
      'outputs: OUT   concurrency: 4',
      '',
      'STEP     KIND              JOBS  LOW  EXPECTED  HIGH  STATUS',
      'product  link_with_params     1    ?         ?     ?  1 not submitted',
      'TOTAL                         1    ?         ?     ?',
      '',
      'budget: 10 — REFUSED: nobody prices the jobs still to submit of product (link_with_params, 1 job), so the cap cannot be kept',
      '1 job of unknown cost not counted (product ×1): add estimate_credits to those steps to count them',
      '',
    ]);
    expect(() => assertBudget(p, budgetView(p, 10))).toThrow(/nobody prices/);
    expect(planToJson(p)).toMatchObject({
      steps: [{ id: 'product', creditsEstimated: null, creditsLow: null, creditsHigh: null, unknownEstimates: 1 }],
      totals: { creditsEstimated: null, creditsLow: null, creditsHigh: null, unknownEstimates: 1 },
    });
  });

  test('a step of no jobs costs 0, which is known', async () => {
    const p = await planOf([{ ...link, for_each: { rows: [] } }]);
    expect([p.steps[0]?.credits, p.totals.credits]).toEqual([{ low: 0, expected: 0, high: 0 }, { low: 0, expected: 0, high: 0 }]);
  });
});

describe('plan --json of a manifest mixing priced and unpriced steps', () => {
  test('gives the all-unknown step null credits and the priced steps figures', async () => {
    const regen = { id: 'regen', kind: 'product_regen', with: { id: '3f1b2c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d' } };
    const { dir } = tempTree({ 'manifest.yaml': manifestWith([link, regen]) });
    const result = await runCli(['plan', 'manifest.yaml', '--json'], { cwd: dir });
    const json = JSON.parse(result.stdout) as { steps: { id: string; creditsLow: unknown; creditsEstimated: unknown; creditsHigh: unknown; unknownEstimates: number }[] };
    expect(json.steps.map((s) => [s.id, s.creditsLow, s.creditsEstimated, s.creditsHigh, s.unknownEstimates])).toEqual([
      ['product', null, null, null, 1],
      ['regen', 1, 1, 1, 0],
    ]);
  });
});
