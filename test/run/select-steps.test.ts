import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { loadManifest } from '../../src/manifest/index.js';
import { planManifest, type ListedPlan } from '../../src/plan/index.js';
import { selectSteps } from '../../src/run/select-steps.js';

/** product → playables (a reference); shorts alone; clips needs shorts (a `needs`). */
const MANIFEST = `
version: 1
name: sel
outputs: out
steps:
  - id: product
    kind: link
    with: { url: https://shop.example.com/p }
  - id: playables
    kind: html_ads
    with: { link: "{{ steps.product.id }}", style_ids: [quiz-3q, carousel] }
  - id: shorts
    kind: ai_short
    matrix: { aspect_ratio: [9x16, 1x1] }
    with: { script: "Run further.", style: 3D, aspect_ratio: "{{ matrix.aspect_ratio }}" }
  - id: clips
    kind: ai_short
    needs: [shorts]
    with: { script: "And further.", style: 3D, aspect_ratio: 9x16 }
`;

let dir: string;
let plan: ListedPlan;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'reelpipe-select-'));
  writeFileSync(join(dir, 'm.yaml'), MANIFEST);
  plan = planManifest(await loadManifest(join(dir, 'm.yaml'), { env: {}, cwd: dir }));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const nothingRecorded = () => undefined;
const keysOf = (step: string) => plan.jobs.filter((j) => j.step === step).map((j) => j.key);

describe('--step', () => {
  test('narrows the plan to the chosen steps, with their totals alone', () => {
    const chosen = selectSteps(plan, ['shorts'], nothingRecorded);
    expect(chosen.steps.map((s) => s.id)).toEqual(['shorts']);
    expect(chosen.jobs.map((j) => j.key)).toEqual(keysOf('shorts'));
    expect(chosen.totals).toEqual({ jobs: 2, credits: { low: 10, expected: 10, high: 10 }, unknownJobs: 0 });
  });

  test('repeated, it keeps the plan order whatever the order given', () => {
    expect(selectSteps(plan, ['playables', 'product'], nothingRecorded).steps.map((s) => s.id)).toEqual(['product', 'playables']);
  });

  test.each([
    ['a reference', ['playables'], 'step playables needs jobs of step product that are not finished: add --step product to run it too'],
    ['a needs', ['clips'], 'step clips needs jobs of step shorts that are not finished: add --step shorts to run it too'],
    ['both', ['clips', 'playables'], 'step playables needs jobs of step product that are not finished; step clips needs jobs of step shorts that are not finished: add --step product --step shorts to run them too'],
  ])('a step that needs unfinished jobs of a step not chosen (%s) is refused, naming the steps to add', (_why, steps, message) => {
    expect(() => selectSteps(plan, steps, nothingRecorded)).toThrow(new UsageError(`${message} (nothing was submitted)`));
  });

  test.each([
    ['done', true],
    ['downloaded', true],
    ['submitted', false],
    ['failed', false],
    ['planned', false],
  ])('an upstream job that is %s: the dependent step may run alone = %s', (status, allowed) => {
    const statusOf = (key: string) => (keysOf('product').includes(key) ? status : undefined);
    const select = () => selectSteps(plan, ['playables'], statusOf);
    if (allowed) expect(select().jobs.map((j) => j.step)).toEqual(['playables']);
    else expect(select).toThrow(/needs jobs of step product that are not finished/);
  });

  test('every upstream job must be finished: one of two shorts unfinished still refuses clips', () => {
    const [first] = keysOf('shorts');
    expect(() => selectSteps(plan, ['clips'], (key) => (key === first ? 'downloaded' : 'running'))).toThrow(/add --step shorts/);
  });

  test('an unknown step is a usage error naming the steps there are', () => {
    expect(() => selectSteps(plan, ['shorts', 'nope'], nothingRecorded)).toThrow(
      new UsageError("--step nope: no such step; the manifest's steps are product, playables, shorts, clips"),
    );
  });
});
