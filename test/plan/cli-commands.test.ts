import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { loadManifest } from '../../src/manifest/index.js';
import { planManifest } from '../../src/plan/index.js';
import { openStore } from '../../src/state/index.js';
import { REPO_ROOT, runCli } from '../helpers/cli.js';
import { tempTree } from '../manifest/helpers/temp-tree.js';

/** validate, plan and schema through the real CLI (needs `npm run build`). */
const MANIFEST = `version: 1
name: cli
budget: { max_credits: 50 }
steps:
  - id: shorts
    kind: ai_short
    for_each: { csv: rows.csv }
    with: { script: "{{ row.script }}", aspect_ratio: "{{ row.ratio }}", style: Cinematic }
  - id: link
    kind: link_with_params
    with: { title: T, image_urls: [https://example.com/i.png] }
`;
const tree = (csv = 'script,ratio\nHello there,9x16\nSecond one,1x1\n', manifest = MANIFEST) =>
  tempTree({ 'manifest.yaml': manifest, 'rows.csv': csv });

describe('reelpipe validate', () => {
  test('prints a one-line OK and exits 0', async () => {
    const { dir } = tree();
    const result = await runCli(['validate', 'manifest.yaml'], { cwd: dir });
    expect([result.exitCode, result.stdout]).toEqual([0, 'OK manifest.yaml: cli, 2 steps, 3 jobs']);
  });

  test('lists every problem, one per line, and exits 2', async () => {
    const { dir } = tree('script,ratio\nHello there,9:16\n,1x1\n');
    const result = await runCli(['validate', 'manifest.yaml'], { cwd: dir });
    expect(result.exitCode).toBe(2);
    expect(result.stderr.split('\n')).toEqual([
      'reelpipe: manifest.yaml: 2 problems',
      'rows.csv:2:13  steps.0.with.aspect_ratio: "9:16" is not accepted; did you mean 9x16? (accepted: 9x16, 16x9, 1x1)',
      'rows.csv:3:1  steps.0.with.script: must not be empty',
    ]);
  });

  test('a missing manifest exits 2', async () => {
    const result = await runCli(['validate', 'nope.yaml'], { cwd: tree().dir });
    expect([result.exitCode, result.stderr]).toEqual([2, 'reelpipe: nope.yaml: 1 problem\nnope.yaml  manifest not found']);
  });

  test('accepts the README demo', async () => {
    const result = await runCli(['validate', 'examples/demo.yaml']);
    expect([result.exitCode, result.stdout]).toEqual([0, 'OK examples/demo.yaml: demo, 5 steps, 9 jobs']);
  });
});

describe('reelpipe plan', () => {
  test('prints the table within budget, names the state database it read, and exits 0', async () => {
    const priced = MANIFEST.replace('kind: link_with_params', 'kind: link_with_params\n    estimate_credits: { low: 1, expected: 1, high: 1 }');
    const { dir } = tree(undefined, priced);
    const result = await runCli(['plan', 'manifest.yaml'], { cwd: dir });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^shorts {2}ai_short +2 +10 +10 +10 {2}2 not submitted$/m);
    expect(result.stdout).toContain(`state: ${path.join(dir, 'state', 'reelpipe.db')}`);
    expect(result.stdout).toContain('budget: 50 — expected 11 is within it (22%)');
  });

  test('--json gives every job with key, label, origin, kind, credits and state, and the totals', async () => {
    const result = await runCli(['plan', 'manifest.yaml', '--json'], { cwd: tree().dir });
    const plan = JSON.parse(result.stdout) as { jobs: Record<string, unknown>[]; totals: unknown };
    expect(plan.jobs.map((j) => [j.step, j.label, j.origin, j.kind, j.credits, j.state, j.dbStatus])).toEqual([
      ['shorts', 'shorts · rows.csv:2 · Hello there', 'rows.csv:2', 'ai_short', { low: 5, expected: 5, high: 5, exact: false }, 'not submitted', null],
      ['shorts', 'shorts · rows.csv:3 · Second one', 'rows.csv:3', 'ai_short', { low: 5, expected: 5, high: 5, exact: false }, 'not submitted', null],
      ['link', 'link', null, 'link_with_params', null, 'not submitted', null],
    ]);
    expect(plan.jobs.map((j) => [j.creditsUsed, j.submittedAt, j.finishedAt, j.downloadedAt, j.outputs])).toEqual(Array(3).fill([0, null, null, null, []]));
    expect(plan.jobs.every((j) => /^(shorts|link):[0-9a-f]{12}$/.test(String(j.key)))).toBe(true);
    expect(plan.totals).toEqual({
      jobs: 3, counts: { 'not submitted': 3 }, creditsEstimated: 10, creditsUsed: 0, unknownEstimates: 1, unknownUsed: 0, overHighEstimate: 0, creditsLow: 10, creditsHigh: 10,
      creditsApart: { superseded: 0, removed: 0, forgotten: 0 }, refunded: { total: 0, derived: 0 },
    });
  });

  test('over budget: prints the plan, then refuses with the figures and exit 3', async () => {
    const result = await runCli(['plan', 'manifest.yaml', '--max-credits', '7.5'], { cwd: tree().dir });
    expect(result.exitCode).toBe(3);
    expect(result.stdout).toContain('budget: 7.5 — OVER by 2.5 (expected 10 to submit)');
    expect(result.stderr).toBe(
      'reelpipe: plan cli expects 10 credits for the 3 jobs still to submit (low 10, high 10), over the budget of 7.5 by 2.5; 1 job of unknown cost not counted (link ×1). Nothing was submitted; raise budget.max_credits or --max-credits, or plan fewer jobs.',
    );
  });

  test('shows each job as the state database knows it', async () => {
    const named = MANIFEST.replace('for_each: { csv: rows.csv }', 'for_each: { csv: rows.csv }\n    name: "clip-{{ row.ratio }}"');
    const { dir } = tree(undefined, named);
    const plan = planManifest(await loadManifest('manifest.yaml', { env: {}, cwd: dir }));
    const [first, second] = plan.jobs;
    if (!first || !second) throw new Error('expected two shorts');
    const recorded = (job: typeof first, key = job.key) => ({ key, step: job.step, kind: job.kind, outputName: job.outputName, request: job.request, creditsEstimated: 5 });
    const store = await openStore(path.join(dir, 'state/reelpipe.db'));
    try {
      // The first job has been sent; the second was recorded under an older key (its script was edited since).
      await store.syncPlan(plan.manifestId, [recorded(first), recorded(second, 'shorts:000000000000')]);
      await store.write({ key: first.key, move: { to: 'submitting', type: 'job:intent' } });
    } finally {
      await store.close();
    }
    const result = await runCli(['plan', 'manifest.yaml'], { cwd: dir });
    expect(result.stdout).toMatch(/^shorts .* {2}1 changed, 1 submitting$/m);
    const elsewhere = await runCli(['plan', 'manifest.yaml', '--state', 'other.db'], { cwd: dir });
    expect(elsewhere.stdout).toMatch(/^shorts .* {2}2 not submitted$/m);
    // A manifest is known by its name, not its file: an identical copy is the same manifest…
    writeFileSync(path.join(dir, 'copy.yaml'), named);
    const copy = await runCli(['plan', 'copy.yaml'], { cwd: dir });
    expect(copy.stdout).toMatch(/^shorts .* {2}1 changed, 1 submitting$/m);
    // …and one of another project is another manifest, which has sent nothing yet.
    writeFileSync(path.join(dir, 'other.yaml'), named.replace(/^name: cli$/m, 'name: cli\nproject: other'));
    const other = await runCli(['plan', 'other.yaml'], { cwd: dir });
    expect(other.stdout).toMatch(/^shorts .* {2}2 not submitted$/m);
  });

  test('a bad --max-credits is a usage error', async () => {
    const result = await runCli(['plan', 'manifest.yaml', '--max-credits', 'lots'], { cwd: tree().dir });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('--max-credits takes a positive number of credits, got "lots"');
  });
});

describe('reelpipe schema', () => {
  test('prints the JSON Schema snapshotted in docs/manifest.schema.json', async () => {
    const result = await runCli(['schema']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe(readFileSync(path.join(REPO_ROOT, 'docs/manifest.schema.json'), 'utf8').trimEnd());
  });
});
