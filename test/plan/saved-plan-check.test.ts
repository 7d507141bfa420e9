import { describe, expect, test } from 'vitest';
import { fingerprintOf, planFileLines, planManifest, PlanFileProblem, SavedPlanCheck, savedPlanHeader, type ListedPlan } from '../../src/plan/index.js';
import type { PlanAction } from '../../src/plan/plan-actions.js';
import { load, manifestWith } from '../manifest/helpers/temp-tree.js';

/**
 * `run --plan FILE` reads the saved plan a line at a time against the plan the manifest yields now:
 * it runs only a whole, untouched file of the jobs it yields, and names every job that differs.
 */
const short = { kind: 'ai_short', id: 'shorts', name: 'short-{{ row.sku }}', for_each: { csv: 'rows.csv' }, with: { script: '{{ row.script }}', style: '3D', aspect_ratio: '9x16' } };
const rows = (...scripts: string[]) => `sku,script\n${scripts.map((s, i) => `S${i + 1},${s}`).join('\n')}\n`;

/** The plan of `csv`, and its saved file's lines; `keep`: the places of the jobs it was to leave alone. */
async function planOf(csv: string, keep: readonly number[] = []): Promise<{ plan: ListedPlan; lines: string[] }> {
  const manifest = await load({ 'manifest.yaml': manifestWith([short]), 'rows.csv': csv });
  const plan = planManifest(manifest);
  const action = (key: string): PlanAction => (keep.includes(plan.jobs.findIndex((j) => j.key === key)) ? 'keep' : 'create');
  return { plan, lines: [...planFileLines(plan, fingerprintOf(manifest), action, () => undefined, '2026-11-28T00:00:00.000Z')].map((l) => l.slice(0, -1)) };
}

/** Feeds `lines` (the file's, its first line read before) to a check against `plan`; its differences, or the problem it found. */
function check(plan: ListedPlan, lines: readonly string[], actionNow: (key: string) => PlanAction = () => 'create', max?: number): string[] | string {
  try {
    const first = lines.findIndex((l) => l.trim() !== '');
    const checking = new SavedPlanCheck('p.ndjson', savedPlanHeader(lines[first] as string, 'p.ndjson', first + 1), plan, max);
    for (const line of lines) checking.line(line);
    return checking.differences(actionNow);
  } catch (error) {
    if (error instanceof PlanFileProblem) return error.message;
    throw error;
  }
}

describe('a saved plan checked line by line', () => {
  test('the plan it was saved from yields it: no difference, blank lines allowed', async () => {
    const { plan, lines } = await planOf(rows('One.', 'Two.', 'Three.'));
    expect(savedPlanHeader(lines[0] as string, 'p.ndjson', 1)).toMatchObject({ manifest: plan.manifestPath, steps: ['shorts'], jobs: 3 });
    expect(check(plan, ['', ...lines, ''])).toEqual([]);
  });

  test('an edited row: its new job is not in the saved plan, its old one no longer yielded', async () => {
    const saved = await planOf(rows('One.', 'Two.', 'Three.'));
    const now = await planOf(rows('One.', 'Two edited.', 'Three.'));
    const [edited, old] = [now.plan.jobs[1], saved.plan.jobs[1]];
    expect(check(now.plan, saved.lines)).toEqual([
      `+ short-S2 (${edited?.key}): not in the saved plan`,
      `- short-S2 (${old?.key}): in the saved plan, no longer yielded by the manifest`,
    ]);
  });

  test('a job it was to leave alone that would now be sent again (its record gone) differs', async () => {
    const { plan, lines } = await planOf(rows('One.', 'Two.'), [0]);
    const first = plan.jobs[0]?.key;
    expect(check(plan, lines, (key) => (key === first ? 'keep' : 'create'))).toEqual([]);
    expect(check(plan, lines)).toEqual([`+ short-S1 (${first}): the plan left it alone, but it would now be sent (and paid for) again`]);
  });

  test('at most `max` differences are named, the plan\'s first, then how many more', async () => {
    const saved = await planOf(rows('a.', 'b.', 'c.'));
    const now = await planOf(rows('x.', 'y.', 'z.'));
    const said = check(now.plan, saved.lines, () => 'create', 4) as string[];
    expect(said.map((l) => l.slice(0, 10))).toEqual(['+ short-S1', '+ short-S2', '+ short-S3', '- short-S1', '… and 2 mo']);
  });

  test.each([
    ['cut short (no closing line)', (l: string[]) => l.slice(0, -1), /^p\.ndjson: the plan is cut short \(4 lines, no closing line\)/],
    ['a job line changed after it was written', (l: string[]) => l.map((x, i) => (i === 2 ? x.replace('short-S2', 'short-X') : x)), /^p\.ndjson:5: the plan's jobs were changed after it was written/],
    ['a job line removed', (l: string[]) => l.filter((_, i) => i !== 2), /^p\.ndjson:4: the plan's jobs were changed after it was written/],
    ['a job line twice', (l: string[]) => [...l.slice(0, 3), l[2] as string, ...l.slice(3)], /^p\.ndjson:4: the plan's jobs were changed/],
    ['a line that is not JSON', (l: string[]) => [l[0] as string, '{oops', ...l.slice(1)], /^p\.ndjson:2: not a line of a reelpipe plan \(not a JSON object\)/],
    ['text after the closing line', (l: string[]) => [...l, '{}'], /^p\.ndjson:6: text after the plan's last line/],
    ['a first line other than the one read before planning', (l: string[]) => [l[0]?.replace('"jobs":3', '"jobs":4') as string, ...l.slice(1)], /^p\.ndjson:1: the plan's first line changed while it was being read/],
  ])('refuses a file %s, naming the line', async (_, alter, problem) => {
    const { plan, lines } = await planOf(rows('One.', 'Two.', 'Three.'));
    const altered = alter([...lines]);
    const first = new SavedPlanCheck('p.ndjson', savedPlanHeader(lines[0] as string, 'p.ndjson', 1), plan);
    let said: string;
    try {
      for (const line of altered) first.line(line);
      first.differences(() => 'create');
      said = 'accepted';
    } catch (error) {
      said = (error as Error).message;
    }
    expect(said).toMatch(problem);
  });

  test('a file that is not a plan of this format is refused at its first line', () => {
    expect(() => savedPlanHeader('{"reelpipe":"plan","format":2}', 'p.ndjson', 3)).toThrow(/^p\.ndjson:3: not a reelpipe plan of format 1/);
    expect(() => savedPlanHeader('[1,2]', 'p.ndjson', 1)).toThrow(/not a JSON object/);
  });
});
