import { describe, expect, test } from 'vitest';
import { BudgetExceededError } from '../../src/errors.js';
import { assertBudget, budgetView, planManifest, planToJson, renderPlanTable, type JobMoney, type Plan, type RecordedMoney } from '../../src/plan/index.js';
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

  /** What a state database holds: each job's status, and what every charge counts as spent. */
  const recorded = (jobs: Record<string, JobMoney>, spent = 0): RecordedMoney => ({
    job: (key) => jobs[key], spent, heldOutside: 0, apart: { superseded: 0, removed: 0, forgotten: 0 },
  });
  const gate = (p: Plan, money: Record<string, JobMoney> = {}, spent = 0) => () => assertBudget(p, budgetView(p, p.budget.maxCredits, recorded(money, spent)));

  test('a plan within budget passes', async () => {
    const p = await planManifest(await load({ 'manifest.yaml': manifestWith([steps[0]!, steps[2]!], { budget: { max_credits: 11 } }) }));
    expect(gate(p)).not.toThrow();
  });

  test('a plan over budget is refused with the figures and the unknown jobs', async () => {
    const p = await plan({ budget: { max_credits: 10 } });
    expect(gate(p)).toThrow(BudgetExceededError);
    expect(gate(p)).toThrow(
      'plan test expects 11 credits for the 4 jobs still to submit (low 10, high 13), over the budget of 10 by 1; 1 job of unknown cost not counted (link ×1). Nothing was submitted; raise budget.max_credits or --max-credits, or plan fewer jobs.',
    );
  });

  test('under a cap, a step nobody prices refuses the plan as it refuses the run: the cap could not be kept', async () => {
    const p = await plan({ budget: { max_credits: 1000 } });
    expect(budgetView(p, 1000).verdict).toBe('unpriced');
    expect(gate(p)).toThrow(/a credit cap of 1,000 is set, but nobody prices the jobs still to submit of link \(link_with_params, 1 job\), so the cap could not be kept\. Nothing was submitted; give each of those steps estimate_credits/);
  });

  test('what is already spent counts against the cap; a finished manifest over a lowered cap has nothing to refuse', async () => {
    const p = await planManifest(await load({ 'manifest.yaml': manifestWith([steps[0]!], { budget: { max_credits: 8 } }) }));
    const [ten, twenty] = p.jobs.map((j) => j.key) as [string, string];
    const paid = { status: 'downloaded', creditsReserved: 0, creditsEstimated: 3 };
    // 3 spent + 6 still to submit = 9 > 8.
    expect(budgetView(p, 8, recorded({ [ten]: paid }, 3))).toMatchObject({ spent: 3, held: 0, toSubmit: { jobs: 1 }, verdict: 'over' });
    expect(gate(p, { [ten]: paid }, 3)).toThrow(/6 credits for the 1 job still to submit .*, beside 3 already spent, over the budget of 8 by 1/);
    const both = { [ten]: paid, [twenty]: { ...paid, creditsEstimated: 6 } };
    const lowered = { ...p, budget: { maxCredits: 5 } };
    expect(budgetView(lowered, 5, recorded(both, 9))).toMatchObject({ spent: 9, verdict: 'nothing-to-submit' });
    expect(gate(lowered, both, 9)).not.toThrow();
  });

  test('a job at the service weighs its expected cost in the verdict, though the run holds its high end', async () => {
    const p = await planManifest(await load({ 'manifest.yaml': manifestWith([steps[0]!], { budget: { max_credits: 9 } }) }));
    const [ten] = p.jobs.map((j) => j.key) as [string];
    const rendering = { status: 'running', creditsReserved: 30, creditsEstimated: 3 };
    expect(budgetView(p, 9, recorded({ [ten]: rendering }))).toMatchObject({ held: 3, toSubmit: { jobs: 1 }, verdict: 'within' });
  });

  test('spend on no job of the plan (an edited row\'s earlier version, a forgotten job) counts against the cap, said apart', async () => {
    const p = await planManifest(await load({ 'manifest.yaml': manifestWith([steps[0]!], { budget: { max_credits: 15 } }) }));
    const view = budgetView(p, 15, { ...recorded({}, 10), apart: { superseded: 5, removed: 0, forgotten: 5 } });
    expect(view).toMatchObject({ spent: 10, verdict: 'over' });
    expect(() => assertBudget(p, view)).toThrow(/beside 10 already spent \(5 on earlier versions of changed rows, 5 on forgotten jobs\), over the budget of 15 by 4/);
  });

  test('--max-credits overrides the manifest budget', async () => {
    const p = await plan({ budget: { max_credits: 1000 } }, { maxCredits: 5 });
    expect(p.budget.maxCredits).toBe(5);
    expect(gate(p)).toThrow(BudgetExceededError);
  });

  test('no budget means no limit', () => {
    expect(gate(planManifestless as Plan)).not.toThrow();
  });
});

const planManifestless = {
  name: 'x', manifestPath: '', manifestId: 'x', outputsDir: '', concurrency: 1, kindConcurrency: {}, budget: { maxCredits: null },
  steps: [], jobs: [], totals: { jobs: 0, credits: { low: 0, expected: 1e9, high: 1e9 }, unknownJobs: 0 }, duplicates: [], warnings: [],
};

describe('the plan table', () => {
  test('shows jobs and credits per step, drawn as bars, the total against the budget, and the unknown jobs', async () => {
    const p = await plan({ budget: { max_credits: 100 } });
    const table = renderPlanTable(p).replace(p.outputsDir, 'OUT');
    expect(table).toBe(
      [
        'Plan test — 4 jobs in 3 steps',
        'outputs: OUT   concurrency: 4',
        '',
        'STEP   KIND              JOBS   LOW  EXPECTED  HIGH  STATUS',
        'clip   boreal               2     9         9     9  2 not submitted',
        'link   link_with_params     1     ?         ?     ?  1 not submitted',
        'voice  voice_clone          1     1         2     4  1 not submitted',
        'TOTAL                       4  10+?      11+?  13+?',
        '',
        'credits per step: █ expected, ░ up to the high estimate',
        'clip   ████████████████████████████████████████  9',
        'link                                             ? (unknown)',
        'voice  ████████▉░░░░░░░░░                        2 (up to 4)',
        '',
        'budget: 100 — REFUSED: nobody prices the jobs still to submit of link (link_with_params, 1 job), so the cap cannot be kept',
        '1 job of unknown cost not counted (link ×1): add estimate_credits to those steps to count them',
        '',
      ].join('\n'),
    );
  });

  test('shows each job as the run state knows it', async () => {
    const p = await plan();
    const done = new Set([p.jobs[0]?.key]);
    expect(renderPlanTable(p, { statusOf: (key) => (done.has(key) ? 'done' : undefined) })).toContain('clip   boreal               2     9         9     9  1 not submitted, 1 done');
  });

  test('as JSON lists every job with its key, label, credits and state, and the totals', async () => {
    const p = await plan();
    const json = planToJson(p) as { jobs: { key: string; label: string; credits: unknown; state: string; dbStatus: unknown; creditsUsed: unknown }[]; totals: unknown };
    expect(json.jobs.map((j) => [j.key.split(':')[0], j.label, j.credits, j.state, j.dbStatus, j.creditsUsed])).toEqual([
      ['clip', 'clip · 10', { low: 3, expected: 3, high: 3, exact: true }, 'not submitted', null, 0],
      ['clip', 'clip · 20', { low: 6, expected: 6, high: 6, exact: true }, 'not submitted', null, 0],
      ['link', 'link', null, 'not submitted', null, 0],
      ['voice', 'voice', { low: 1, expected: 2, high: 4, exact: false }, 'not submitted', null, 0],
    ]);
    // status --json's names (creditsEstimated, unknownEstimates, …), with the estimates' range beside them.
    expect(json.totals).toEqual({
      jobs: 4, counts: { 'not submitted': 4 }, creditsEstimated: 11, creditsUsed: 0, unknownEstimates: 1, unknownUsed: 0, overHighEstimate: 0, creditsLow: 10, creditsHigh: 13,
    });
  });
});
