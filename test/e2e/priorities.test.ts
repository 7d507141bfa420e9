import { afterEach, describe, expect, test } from 'vitest';
import { TIME_SCALE, openProject, type Project } from './harness.js';

/** 30 AI Shorts first in the manifest, then a step of one job: at concurrency 2 it would be sent 31st by plan order. */
const manifest = (last: string) => `
version: 1
name: rush
outputs: out
concurrency: 2
steps:
  - id: shorts
    kind: ai_short
    matrix: { n: [${Array.from({ length: 30 }, (_, i) => i + 1).join(', ')}] }
    with: { script: "Take {{ matrix.n }}: the trail goes on.", style: 3D, aspect_ratio: 9x16 }
${last}`;

const TEASER = `  - id: teaser
    kind: boreal
    priority: 10
    with: { prompt: A trail shoe in a mountain stream, resolution: 720p, duration: 10 }
`;

let project: Project | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

/** The kinds of the jobs the sandbox made, in the order it made them. */
const creationOrder = (p: Project) => p.sandbox.jobs().map((job) => job.kind);

describe('priority', () => {
  test('a Boreal step with priority 10 behind 30 AI Shorts at concurrency 2 is among the first POSTs; plan and status show it', async () => {
    project = await openProject();
    project.write('rush.yaml', manifest(TEASER));
    const plan = JSON.parse((await project.cli(['plan', 'rush.yaml', '--json'])).stdout) as { steps: { id: string; priority: number }[]; jobs: { step: string; priority: number }[] };
    expect(plan.steps.map((s) => [s.id, s.priority])).toEqual([['shorts', 0], ['teaser', 10]]);
    expect(plan.jobs.find((j) => j.step === 'teaser')?.priority).toBe(10);
    expect((await project.cli(['plan', 'rush.yaml'])).stdout).toMatch(/^teaser +boreal +1 +1 +1 +1 +10 +1 not submitted$/m);

    const run = await project.cli(['run', 'rush.yaml', '--time-scale', TIME_SCALE]);
    expect(run.exitCode, run.stderr).toBe(0);
    const order = creationOrder(project);
    expect(order).toHaveLength(31);
    expect(order.slice(0, 2), order.join(' ')).toContain('boreal');
    // Stored on the job's row, and shown by status --json.
    expect(project.query<{ step: string; priority: number }>('SELECT step, priority FROM jobs WHERE step = ?', 'teaser')).toEqual([{ step: 'teaser', priority: 10 }]);
    const status = JSON.parse((await project.cli(['status', 'rush.yaml', '--json'])).stdout) as { jobs: { step: string; priority: number }[] };
    expect(status.jobs.filter((j) => j.step === 'teaser').map((j) => j.priority)).toEqual([10]);
    expect(status.jobs.filter((j) => j.priority !== 0)).toHaveLength(1);
  });

  test('a higher-priority job whose upstream is not finished waits for it', async () => {
    project = await openProject();
    project.write('rush.yaml', manifest(`  - id: product
    kind: link_with_params
    download: false
    with: { title: Trail Runner, image_urls: [https://shop.example/tr.jpg] }
  - id: playables
    kind: html_ads
    priority: 10
    with: { link: "{{ steps.product.id }}", style_ids: [scratch-card] }
`));
    const run = await project.cli(['run', 'rush.yaml', '--time-scale', TIME_SCALE]);
    expect(run.exitCode, run.stderr).toBe(0);
    const jobs = project.sandbox.jobs();
    const link = jobs.findIndex((j) => j.kind === 'link_with_params');
    const ads = jobs.findIndex((j) => j.kind === 'html_ads');
    expect(link).toBeGreaterThan(-1);
    // Sent after its link was made (its request names the link's id), whatever its priority.
    expect(ads).toBeGreaterThan(link);
    expect(jobs[ads]?.body.link).toBe(jobs[link]?.id);
  });
});
