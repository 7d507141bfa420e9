import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { TIME_SCALE, creditsInState, openProject, statusCounts, verifyOutputs, type Project } from './harness.js';

const MANIFEST = `
version: 1
name: mixed
outputs: out
concurrency: 6
steps:
  - id: shorts
    kind: ai_short
    for_each: { csv: scripts.csv }
    name: "short-{{ row.sku }}"
    with: { script: "{{ row.script }}", style: Cinematic, aspect_ratio: 9x16 }
  - id: product
    kind: link
    download: false
    with: { url: https://shop.example.com/products/trail-runner }
  - id: clones
    kind: ad_clone
    estimate_credits: { low: 40, expected: 84, high: 168 }
    matrix: { language: [de, fr, es] }
    name: "clone-{{ matrix.language }}"
    with:
      link: "{{ steps.product.id }}"
      video_url: https://example.com/ads/reference.mp4
      language: "{{ matrix.language }}"
  - id: playables
    kind: html_ads
    with: { link: "{{ steps.product.id }}", style_ids: [scratch-card, quiz-3q] }
  - id: teaser
    kind: boreal
    with: { prompt: A trail shoe in a mountain stream, resolution: 720p, duration: 10 }
`;
const CSV = 'sku,script\nTR-1,Meet the Trail Runner. Light and fast.\nTR-2,Grip that holds on wet rock.\nTR-3,Recycled upper. Same speed.\n';

let project: Project;
beforeAll(async () => {
  project = await openProject();
  project.write('scripts.csv', CSV);
  project.write('mixed.yaml', MANIFEST);
});
afterAll(() => project.close());

describe('a mixed manifest, end to end through the real CLI', () => {
  test('runs to exit 0 with every output downloaded and verified against its recorded checksum', async () => {
    const run = await project.cli(['run', 'mixed.yaml', '--time-scale', TIME_SCALE]);
    expect(run.stderr).not.toContain('e2e-api-key-secret');
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain('mixed: 9 jobs — 9 done');
    expect(statusCounts(project)).toEqual({ downloaded: 9 });
    const outputs = join(project.dir, 'out');
    // 3 shorts + 3 clones + 2 ads + 1 teaser; the link has no file.
    expect(verifyOutputs(project, outputs)).toEqual({ files: 9, mismatches: [] });
    for (const file of ['shorts/short-TR-1.mp4', 'clones/clone-de.mp4', 'clones/clone-es.mp4']) expect(existsSync(join(outputs, file))).toBe(true);
    const stats = project.sandbox.stats();
    expect(stats.duplicates.total).toBe(0);
    expect(creditsInState(project)).toBe(stats.credits.charged - stats.credits.refunded);
  });

  test('running it again submits nothing, reads nothing, and exits 0', async () => {
    const before = project.sandbox.stats();
    const again = await project.cli(['run', 'mixed.yaml', '--time-scale', TIME_SCALE]);
    expect(again.exitCode, again.stderr).toBe(0);
    const after = project.sandbox.stats();
    expect(after.created).toEqual(before.created);
    expect(after.requests).toEqual(before.requests);
  });

  test('a deleted output is fetched again, never resubmitted', async () => {
    const { rmSync } = await import('node:fs');
    rmSync(join(project.dir, 'out', 'clones', 'clone-fr.mp4'));
    const before = project.sandbox.stats();
    const run = await project.cli(['run', 'mixed.yaml', '--time-scale', TIME_SCALE]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(existsSync(join(project.dir, 'out', 'clones', 'clone-fr.mp4'))).toBe(true);
    expect(project.sandbox.stats().created).toEqual(before.created);
  });

  test('status --json reports every job with its state, remote id, credits and files', async () => {
    const status = await project.cli(['status', 'mixed.yaml', '--json']);
    expect(status.exitCode, status.stderr).toBe(0);
    const report = JSON.parse(status.stdout) as { totals: { jobs: number; counts: Record<string, number>; creditsUsed: number }; jobs: { remoteId: string | null; outputs: string[]; step: string }[] };
    expect(report.totals.jobs).toBe(9);
    expect(report.totals.counts).toEqual({ done: 9 });
    expect(report.totals.creditsUsed).toBe(creditsInState(project));
    expect(report.jobs.every((j) => j.remoteId)).toBe(true);
    expect(report.jobs.find((j) => j.step === 'playables')?.outputs).toHaveLength(2);
  });

  test('a manifest change submits only the new job', async () => {
    project.write('scripts.csv', `${CSV}TR-4,A fourth colour for the summer.\n`);
    const before = project.sandbox.stats();
    const run = await project.cli(['run', 'mixed.yaml', '--time-scale', TIME_SCALE]);
    expect(run.exitCode, run.stderr).toBe(0);
    const after = project.sandbox.stats();
    expect(after.created.ai_short).toBe((before.created.ai_short ?? 0) + 1);
    expect(Object.values(after.created).reduce((a, b) => a + b, 0)).toBe(Object.values(before.created).reduce((a, b) => a + b, 0) + 1);
  });
});
