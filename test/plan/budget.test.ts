import { describe, expect, test } from 'vitest';
import { BudgetExceededError } from '../../src/errors.js';
import { assertWithinBudget, planManifest, planToJson, renderPlanTable } from '../../src/plan/index.js';
import { load, manifestWith } from '../manifest/helpers/temp-tree.js';

/** The budget guard and what `plan` prints. */
const steps = [
  { id: 'clip', kind: 'boreal', matrix: { seconds: [10, 20] }, with: { prompt: 'waves', resolution: '1080p', duration: '{{ matrix.seconds }}' } },
  { id: 'link', kind: 'link_with_params', with: { title: 'T', image_urls: ['https://example.com/i.png'] } },
  { id: 'voice', kind: 'voice_clone', estimate_credits: { low: 1, expected: 2, high: 4 }, with: { original_audio_url: 'https://example.com/a.mp3', name: 'Narrator' } },
];
const plan = async (extra: object = {}, options = {}) => planManifest(await load({ 'manifest.yaml': manifestWith(steps, extra) }), options);

describe('the budget', () => {
  test('totals exclude unknown jobs and count them; declared estimates are counted', async () => {
    const p = await plan();
    // boreal 1080p: 10 s = 3, 20 s = 6; voice declared 1/2/4; the link is unknown.
    expect(p.totals).toEqual({ jobs: 4, credits: { low: 10, expected: 11, high: 13 }, unknownJobs: 1 });
    // Unknown is never 0: a step whose every job is unknown has no credit figure at all.
    expect(p.steps.map((s) => [s.id, s.credits?.expected ?? null, s.unknownJobs])).toEqual([['clip', 9, 0], ['link', null, 1], ['voice', 2, 0]]);
  });

  test('a plan within budget passes', async () => {
    const p = await plan({ budget: { max_credits: 11 } });
    expect(() => assertWithinBudget(p)).not.toThrow();
  });

  test('a plan over budget is refused with the figures and the unknown jobs', async () => {
    const p = await plan({ budget: { max_credits: 10 } });
    expect(() => assertWithinBudget(p)).toThrow(BudgetExceededError);
    expect(() => assertWithinBudget(p)).toThrow(
      'plan test expects 11 credits (low 10, high 13), over the budget of 10 by 1; 1 job of unknown cost not counted (link ×1). Nothing was submitted; raise budget.max_credits or --max-credits, or plan fewer jobs.',
    );
  });

  test('--max-credits overrides the manifest budget', async () => {
    const p = await plan({ budget: { max_credits: 1000 } }, { maxCredits: 5 });
    expect(p.budget.maxCredits).toBe(5);
    expect(() => assertWithinBudget(p)).toThrow(BudgetExceededError);
  });

  test('no budget means no limit', async () => {
    expect(() => assertWithinBudget(planManifestless)).not.toThrow();
  });
});

const planManifestless = {
  name: 'x', manifestPath: '', outputsDir: '', concurrency: 1, kindConcurrency: {}, budget: { maxCredits: null },
  steps: [], jobs: [], totals: { jobs: 0, credits: { low: 0, expected: 1e9, high: 1e9 }, unknownJobs: 0 }, duplicates: [], warnings: [],
};

describe('the plan table', () => {
  test('shows jobs and credits per step, the total against the budget, and the unknown jobs', async () => {
    const p = await plan({ budget: { max_credits: 100 } });
    const table = renderPlanTable(p).replace(p.outputsDir, 'OUT');
    expect(table).toBe(
      [
        'Plan test — 4 jobs in 3 steps',
        'outputs: OUT   concurrency: 4',
        '',
        'STEP   KIND              JOBS   LOW  EXPECTED  HIGH  STATUS',
        'clip   boreal               2     9         9     9  2 new',
        'link   link_with_params     1     ?         ?     ?  1 new',
        'voice  voice_clone          1     1         2     4  1 new',
        'TOTAL                       4  10+?      11+?  13+?',
        '',
        'budget: 100 — expected 11 is within it (11%)',
        '1 job of unknown cost not counted (link ×1): add estimate_credits to those steps to count them',
        '',
      ].join('\n'),
    );
  });

  test('shows each job as the run state knows it', async () => {
    const p = await plan();
    const done = new Set([p.jobs[0]?.key]);
    expect(renderPlanTable(p, (key) => (done.has(key) ? 'done' : undefined))).toContain('clip   boreal               2     9         9     9  1 done, 1 new');
  });

  test('as JSON lists every job with its key, credits and status, and the totals', async () => {
    const p = await plan();
    const json = planToJson(p) as { jobs: { key: string; credits: unknown; status: string }[]; totals: unknown };
    expect(json.jobs.map((j) => [j.key.split(':')[0], j.credits, j.status])).toEqual([
      ['clip', { low: 3, expected: 3, high: 3, exact: true }, 'new'],
      ['clip', { low: 6, expected: 6, high: 6, exact: true }, 'new'],
      ['link', null, 'new'],
      ['voice', { low: 1, expected: 2, high: 4, exact: false }, 'new'],
    ]);
    expect(json.totals).toEqual(p.totals);
  });
});
