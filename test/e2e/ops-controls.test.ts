import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { readManifestId } from '../../src/manifest/index.js';
import { acquireLock, openStore } from '../../src/state/index.js';
import { openProject, statusCounts, TIME_SCALE, type Project } from './harness.js';

let project: Project | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

/** A scraped link with playable ads built from it, and shorts that need nothing. */
const LINKED = `
version: 1
name: linked
outputs: out
steps:
  - id: product
    kind: link
    download: false
    with: { url: https://shop.example.com/trail-runner-2 }
  - id: playables
    kind: html_ads
    with: { link: "{{ steps.product.id }}", style_ids: [quiz-3q, carousel] }
  - id: shorts
    kind: ai_short
    matrix: { aspect_ratio: [9x16, 1x1] }
    with: { script: "Run further.", style: 3D, aspect_ratio: "{{ matrix.aspect_ratio }}" }
`;

const SHORTS = (n: number) => `
version: 1
name: shorts
outputs: out
steps:
  - id: shorts
    kind: ai_short
    matrix: { n: [${Array.from({ length: n }, (_, i) => i + 1).join(', ')}] }
    with: { script: "Take {{ matrix.n }}: run further.", style: 3D, aspect_ratio: 9x16 }
`;

const fast = ['--time-scale', TIME_SCALE];

describe('--step', () => {
  test('runs only the chosen steps; a step whose upstream is unfinished is refused until it is finished', async () => {
    project = await openProject();
    project.write('m.yaml', LINKED);
    const refused = await project.cli(['run', 'm.yaml', '--step', 'playables', ...fast]);
    expect([refused.exitCode, refused.stderr.trim().split('\n').at(-1)]).toEqual([
      2, 'reelpipe: step playables needs jobs of step product that are not finished: add --step product to run it too (nothing was submitted)',
    ]);
    expect(project.sandbox.stats().requests).toEqual({});

    const first = await project.cli(['run', 'm.yaml', '--step', 'product', ...fast]);
    expect(first.exitCode, first.stderr).toBe(0);
    expect(project.sandbox.stats().created).toEqual({ link: 1 });
    expect(first.stdout).toMatch(/^linked: 1 job — 1 done/m);

    const plan = await project.cli(['plan', 'm.yaml', '--step', 'playables', '--json']);
    expect(plan.exitCode, plan.stderr).toBe(0);
    expect((JSON.parse(plan.stdout) as { jobs: { step: string }[] }).jobs.map((j) => j.step)).toEqual(['playables']);
    expect(plan.stderr).toBe('--step: 1 of the manifest\'s 4 jobs (step playables)');

    const second = await project.cli(['run', 'm.yaml', '--step', 'playables', ...fast]);
    expect(second.exitCode, second.stderr).toBe(0);
    expect(project.sandbox.stats().created).toEqual({ link: 1, html_ads: 1 });
    // The shorts were never selected: not submitted, not even recorded.
    expect(statusCounts(project)).toEqual({ downloaded: 2 });
    const all = await project.cli(['run', 'm.yaml', ...fast]);
    expect(all.exitCode, all.stderr).toBe(0);
    expect(project.sandbox.stats().created).toEqual({ link: 1, html_ads: 1, ai_short: 2 });
  });

  test('plan --step with an unknown step names the steps there are', async () => {
    project = await openProject();
    project.write('m.yaml', LINKED);
    const result = await project.cli(['plan', 'm.yaml', '--step', 'shorts', '--step', 'nope']);
    expect([result.exitCode, result.stderr]).toEqual([2, "reelpipe: --step nope: no such step; the manifest's steps are product, playables, shorts"]);
  });
});

describe('--halt-after', () => {
  test('after N failures submitting stops, jobs in flight finish, and the run exits 1 naming what is left', async () => {
    project = await openProject({ faults: { rates: { jobFailure: 1 } } });
    project.write('m.yaml', SHORTS(5));
    const run = await project.cli(['run', 'm.yaml', '--concurrency', '1', '--halt-after', '2', ...fast]);
    expect(run.exitCode, run.stderr).toBe(1);
    expect(run.stderr).toMatch(/stopping: --halt-after 2: 2 jobs failed in this run, so submitting stopped/);
    expect(run.stderr).toMatch(/3 jobs left \(3 not submitted yet\).*then `reelpipe retry m\.yaml`/s);
    expect(project.sandbox.stats().created).toEqual({ ai_short: 2 });
    expect(statusCounts(project)).toEqual({ failed: 2, planned: 3 });
  });

  test('at concurrency 3, jobs already sent when the halt comes still finish and download; nothing is sent after it; exit 1', async () => {
    // Slow enough that the two shorts are still rendering when the two refusals (an unknown
    // template: a 400, at once) stop submitting; the order of the lines below checks that it was so.
    const speed = 50;
    project = await openProject({ speed });
    project.write('m.yaml', `
version: 1
name: halting
outputs: out
steps:
  - id: good
    kind: ai_short
    matrix: { n: [1, 2] }
    with: { script: "Take {{ matrix.n }}: run further, past the river and over the ridge.", style: 3D, aspect_ratio: 9x16 }
  - id: bad
    kind: custom_template
    mode: both
    matrix: { n: [1, 2, 3, 4] }
    with: { template_id: vid_00000000, name: "Bad {{ matrix.n }}" }
  - id: later
    kind: ai_short
    matrix: { n: [1, 2] }
    with: { script: "Later {{ matrix.n }}: run further.", style: 3D, aspect_ratio: 9x16 }
`);
    const run = await project.cli(['run', 'm.yaml', '--concurrency', '3', '--halt-after', '2', '--time-scale', String(1 / speed)]);
    expect(run.exitCode, run.stderr).toBe(1);
    const lines = run.stderr.split('\n');
    const at = (pattern: RegExp) => lines.findIndex((line) => pattern.test(line));
    const halt = at(/stopping: --halt-after 2: 2 jobs failed in this run, so submitting stopped/);
    expect(halt, run.stderr).toBeGreaterThan(-1);
    for (const n of [1, 2]) {
      expect(at(new RegExp(`submitted +good · ${n} `)), run.stderr).toBeLessThan(halt);
      expect(at(new RegExp(`finished +good · ${n} `)), run.stderr).toBeGreaterThan(halt);
    }
    // Only the first wave was sent: the two shorts and the two refused templates.
    expect(project.sandbox.stats().created).toEqual({ ai_short: 2 });
    expect(project.sandbox.stats().requests['POST /api/custom_template_jobs/']).toBe(2);
    expect(statusCounts(project)).toEqual({ downloaded: 2, rejected: 2, planned: 4 });
    const good = project.query<{ status: string; files: number }>("SELECT j.status, (SELECT count(*) FROM outputs o WHERE o.job_key = j.key) AS files FROM jobs j WHERE j.step = 'good'");
    expect(good).toEqual([{ status: 'downloaded', files: 1 }, { status: 'downloaded', files: 1 }]);
    expect(run.stderr).toMatch(/4 jobs left \(4 not submitted yet\)/);
  });

  test('without it, every job is sent whatever fails', async () => {
    project = await openProject({ faults: { rates: { jobFailure: 1 } } });
    project.write('m.yaml', SHORTS(3));
    const run = await project.cli(['run', 'm.yaml', '--concurrency', '1', ...fast]);
    expect(run.exitCode).toBe(1);
    expect(project.sandbox.stats().created).toEqual({ ai_short: 3 });
  });

  test.each([
    ['0', 'use a number above 0'],
    ['x', 'use a number above 0'],
    ['1.5', 'use a whole number above 0'],
  ])('--halt-after %s is a usage error', async (n, what) => {
    project = await openProject();
    project.write('m.yaml', SHORTS(1));
    const run = await project.cli(['run', 'm.yaml', '--halt-after', n]);
    expect([run.exitCode, run.stderr]).toEqual([2, `reelpipe: --halt-after ${n}: ${what}`]);
  });
});

describe('--wait-for-lock', () => {
  /** Holds the manifest's lock from this process, as a live run on this host would. */
  async function holdLock(p: Project, manifest: string, host?: string) {
    const store = await openStore(join(p.dir, 'state', 'reelpipe.db'));
    const lock = await acquireLock(store, { name: (await readManifestId(manifest))!, ...(host ? { host } : {}) });
    return {
      release: async () => {
        await lock.release();
        await store.close();
      },
    };
  }

  test('waits for a live run to finish, then runs', async () => {
    project = await openProject();
    const manifest = project.write('m.yaml', SHORTS(1));
    const holder = await holdLock(project, manifest);
    const run = project.cli(['run', 'm.yaml', '--wait-for-lock', '60s', ...fast]);
    let said = '';
    await new Promise<void>((resolve) => run.stderr?.on('data', (chunk: Buffer) => (said += String(chunk)).includes('waiting up to 1m00s') && resolve()));
    expect(project.sandbox.stats().requests).toEqual({});
    await holder.release();
    const result = await run;
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/another run \(pid \d+ on .+\) is working on shorts; try again when it has finished; waiting up to 1m00s for it \(--wait-for-lock\)/);
  });

  test('gives up when the wait is over: exit 75, saying how long it waited, nothing sent', async () => {
    project = await openProject();
    const manifest = project.write('m.yaml', SHORTS(1));
    const holder = await holdLock(project, manifest);
    try {
      const result = await project.cli(['run', 'm.yaml', '--wait-for-lock', '300ms', ...fast]);
      expect(result.exitCode).toBe(75);
      expect(result.stderr).toMatch(/waited 0s for it \(--wait-for-lock, 2 tries\)/);
      expect(project.sandbox.stats().requests).toEqual({});
    } finally {
      await holder.release();
    }
  });

  test('a bad duration names its own flag', async () => {
    project = await openProject();
    project.write('m.yaml', SHORTS(1));
    const result = await project.cli(['run', 'm.yaml', '--wait-for-lock', 'soon']);
    expect([result.exitCode, result.stderr]).toEqual([2, 'reelpipe: --wait-for-lock soon: not a duration; use e.g. 90s, 30m or 2h']);
  });
});
