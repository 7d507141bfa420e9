import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { runCli } from '../helpers/cli.js';

/**
 * `validate` warns of each step nobody prices under the manifest's budget — valid, exit 0 — exactly
 * where `plan` refuses the manifest (exit 3): the budget gate's rule, said when the manifest is
 * written (needs `npm run build`).
 */
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'reelpipe-unpriced-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PRODUCT = `  - id: product
    kind: link_with_params
    with: { title: T, image_urls: [https://example.com/i.png] }
`;
const CLONES = `  - id: clones
    kind: ad_clone
    matrix: { language: [de, fr] }
    with: { link: "{{ steps.product.id }}", video_url: https://example.com/ad.mp4, language: "{{ matrix.language }}" }
`;
const SHORTS = `  - id: shorts
    kind: ai_short
    with: { script: Hello there, style: 3D, aspect_ratio: 9x16 }
`;
/** An AI Short whose script is another job's result: its length, so its price, is known only at run time. */
const LATE_SCRIPT = `  - id: text
    kind: text_generation
    estimate_credits: 1
    with: { model_name: text-model-1, messages: [{ role: user, content: Write a line }] }
  - id: spoken
    kind: ai_short
    with: { script: "{{ steps.text.response_text }}", style: 3D, aspect_ratio: 9x16 }
`;
const manifest = (steps: string, budget = 'budget: { max_credits: 500 }\n') => `version: 1\nname: m\n${budget}steps:\n${steps}`;
const WHAT = (jobs: string, step: string, it: string) =>
  `nobody prices the ${jobs} of step ${step}, and budget.max_credits is 500: \`plan\` and \`run\` refuse ${it} (exit 3) until the step gives estimate_credits: { low, expected, high } (credits per job)`;

test.each([
  ['unpriced steps under a budget', manifest(PRODUCT + CLONES + SHORTS), [`m.yaml:5:5  steps.0: ${WHAT('1 link_with_params job', 'product', 'it')}`, `m.yaml:8:5  steps.1: ${WHAT('2 ad_clone jobs', 'clones', 'them')}`]],
  ['a price known only at run time, under a budget', manifest(LATE_SCRIPT), [`m.yaml:9:5  steps.1: ${WHAT('1 ai_short job', 'spoken', 'it')}`]],
  ['the same steps with estimate_credits', manifest(PRODUCT.replace('    with:', '    estimate_credits: 0\n    with:') + CLONES.replace('    with:', '    estimate_credits: { low: 60, expected: 84, high: 168 }\n    with:')), []],
  ['unpriced steps without a budget', manifest(PRODUCT + CLONES, ''), []],
  ['only priced steps under a budget', manifest(SHORTS), []],
])('%s: validate exits 0 with these warnings, and plan refuses exactly when it warns', async (_name, yaml, warnings) => {
  writeFileSync(join(dir, 'm.yaml'), yaml);
  const validate = await runCli(['validate', 'm.yaml'], { cwd: dir });
  expect(validate.exitCode, validate.stderr).toBe(0);
  expect(validate.stderr.split('\n').filter((line) => line.startsWith('warning: '))).toEqual(warnings.map((w) => `warning: ${w}`));
  const json = await runCli(['validate', 'm.yaml', '--json'], { cwd: dir });
  expect(JSON.parse(json.stdout).warnings).toEqual(warnings);
  const plan = await runCli(['plan', 'm.yaml', '--quiet'], { cwd: dir });
  expect(plan.exitCode).toBe(warnings.length > 0 ? 3 : 0);
});
