import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { created, STORES, TIME_SCALE, countStatuses, openProject, statusCounts, type Project, type ProjectOptions } from './harness.js';

/** `count` AI Shorts, each its own script (so no two are identical requests); `extra` goes under the step. */
const shorts = (count: number, top = '', step = '') => `
version: 1
name: shorts
outputs: out
${top}steps:
  - id: shorts
    kind: ai_short
    matrix: { n: [${Array.from({ length: count }, (_, i) => i + 1).join(', ')}] }
    with: { script: "Take {{ matrix.n }}: run further, past the river.", style: 3D, aspect_ratio: 9x16 }
${step}`;

interface StatusAttempt { at: string; runId: number | null; remoteId: string | null; ended: string; reason: string | null; credits: number | null; retriedInRun: number | null }
interface StatusJson {
  totals: { creditsUsed: number | null };
  jobs: { key: string; state: string; failedReason: string | null; creditsUsed: number | null; attempts: StatusAttempt[] }[];
}

let project: Project | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

async function open(options: ProjectOptions, manifest: string): Promise<Project> {
  project = await openProject(options);
  project.write('m.yaml', manifest);
  return project;
}

const run = (p: Project, ...args: string[]) => p.cli(['run', 'm.yaml', '--time-scale', TIME_SCALE, ...args]);
const status = async (p: Project) => JSON.parse((await p.cli(['status', 'm.yaml', '--json'])).stdout) as StatusJson;

describe.each(STORES)('on %s', (store) => {
  describe('automatic retries (--retries N, retries:)', () => {
    test('12 AI Shorts on a sandbox failing half its jobs, --retries 3: at most 3 fail, credits equal the charges, zero duplicates', async () => {
      const p = await open({ store, faults: { rates: { jobFailure: 0.5 } } }, shorts(12));
      const result = await run(p, '--retries', '3');
      expect([0, 1], result.stderr).toContain(result.exitCode);
      const counts = await countStatuses(p);
      expect(counts.failed ?? 0).toBeLessThanOrEqual(3);
      expect((counts.downloaded ?? 0) + (counts.failed ?? 0)).toBe(12);
      const stats = p.sandbox.stats();
      expect(stats.duplicates.total).toBe(0);
      expect(stats.resubmitted.total).toBeGreaterThan(0);
      expect(created(p)).toBe(12 + stats.resubmitted.total);
      const json = await status(p);
      expect(json.totals.creditsUsed).toBe(stats.credits.charged - stats.credits.refunded);
      // Every attempt is listed: the retried ones failed, with the service's reason and their cost.
      const attempts = json.jobs.flatMap((job) => job.attempts);
      expect(attempts).toHaveLength(created(p));
      const retried = attempts.filter((a) => a.retriedInRun !== null);
      expect(retried).toHaveLength(stats.resubmitted.total);
      for (const a of retried) expect(a).toMatchObject({ ended: 'failed', reason: expect.stringMatching(/sandbox fault jobFailure/), credits: expect.any(Number) });
      for (const job of json.jobs) expect(job.attempts.length).toBeLessThanOrEqual(4);
    });

    test('a job retried N times and still failing ends failed, each attempt listed (the step\'s retries over the manifest\'s)', async () => {
      const p = await open({ store, faults: { rates: { jobFailure: 1 } } }, shorts(1, 'retries: 5\n', '    retries: 2\n'));
      const result = await run(p);
      expect(result.exitCode, result.stderr).toBe(1);
      expect(result.stderr).toMatch(/retry 1 of 2 after: Generation failed/);
      expect(await countStatuses(p)).toEqual({ failed: 1 });
      expect(p.sandbox.stats()).toMatchObject({ created: { ai_short: 3 }, duplicates: { total: 0 }, resubmitted: { total: 2 } });
      const [job] = (await status(p)).jobs;
      const [runId] = (await p.rows<{ id: number }>('SELECT max(id) AS id FROM runs')).map((r) => r.id);
      expect(job?.state).toBe('failed');
      expect(job?.attempts.map((a) => [a.ended, a.retriedInRun, a.runId])).toEqual([['failed', runId, runId], ['failed', runId, runId], ['failed', null, runId]]);
      expect(new Set(job?.attempts.map((a) => a.remoteId)).size).toBe(3);
      // Each attempt's cost is the service's, and the job's is their sum (the earlier ones lapsed as retried, still counted).
      expect(job?.attempts.every((a) => a.credits === 5 && /sandbox fault jobFailure/.test(a.reason ?? ''))).toBe(true);
      expect(job?.creditsUsed).toBe(15);
      expect(await p.rows<{ lapsed: string | null; n: number }>('SELECT lapsed, count(*) AS n FROM charges GROUP BY lapsed ORDER BY lapsed NULLS FIRST')).toEqual([{ lapsed: null, n: 1 }, { lapsed: 'retried', n: 2 }]);
      // The report's results.json and status say them too.
      const results = JSON.parse(readFileSync(join(p.dir, 'out', 'report', 'results.json'), 'utf8')) as { jobs: { attempts: StatusAttempt[] }[] };
      expect(results.jobs[0]?.attempts.map((a) => a.ended)).toEqual(['failed', 'failed', 'failed']);
      expect((await p.cli(['status', 'm.yaml'])).stdout).toMatch(/ {4}attempt 1 \S+Z \S+: failed \(Generation failed.*\), 5 cr, retried by run #\d+\n {4}attempt 2 /);
      // A later run does not retry it: it failed in an earlier run (`reelpipe retry` is for that).
      expect((await run(p, '--retries', '3')).exitCode).toBe(1);
      expect(created(p)).toBe(3);
    });

    test('a partly failed HTML ad job is resent asking only for its failed styles, until every style is made', async () => {
      const p = await open({ store, faults: { rates: { adTooLarge: 0.5 } } }, `
version: 1
name: ads
outputs: out
retries: 3
steps:
  - { id: product, kind: link_with_params, download: false, with: { title: Trail shoe, image_urls: ["https://example.com/shoe.png"] } }
  - id: ads
    kind: html_ads
    with: { link: "{{ steps.product.id }}", style_ids: [scratch-card, spin-wheel, tap-to-reveal, memory-match] }
`);
      const result = await run(p);
      const asked = p.sandbox.jobs().filter((j) => j.kind === 'html_ads').map((j) => j.body.style_ids as string[]);
      expect(asked[0]).toEqual(['scratch-card', 'spin-wheel', 'tap-to-reveal', 'memory-match']);
      expect(asked.length, JSON.stringify(asked)).toBeGreaterThan(1);
      // Each attempt asks for what the ones before it did not make: the styles that failed last time.
      const ads = (await status(p)).jobs.find((j) => j.key.startsWith('ads:'))!;
      for (let i = 1; i < asked.length; i++) expect(asked[i]!.every((style) => asked[i - 1]!.includes(style)) && asked[i]!.length < 4).toBe(true);
      expect(ads.attempts.slice(0, -1).every((a) => a.ended === 'partly failed' && a.retriedInRun !== null)).toBe(true);
      if (ads.state === 'done') expect(result.exitCode, result.stderr).toBe(0);
      else expect(asked).toHaveLength(4);
      expect(p.sandbox.stats().duplicates.total).toBe(0);
      expect((await status(p)).totals.creditsUsed).toBe(p.sandbox.stats().credits.charged - p.sandbox.stats().credits.refunded);
    });

    test('without retries (the default) a failed job is not resubmitted', async () => {
      const p = await open({ store, faults: { rates: { jobFailure: 1 } } }, shorts(2));
      expect((await run(p)).exitCode).toBe(1);
      expect(created(p)).toBe(2);
      expect(p.sandbox.stats().resubmitted.total).toBe(0);
    });
  });
});

describe('never retried', () => {
  test('a job the service rejects at review', async () => {
    const p = await open({ faults: { rates: { jobRejection: 1 } } }, shorts(1));
    expect((await run(p, '--retries', '3')).exitCode).toBe(1);
    expect(statusCounts(p)).toEqual({ rejected: 1 });
    expect(created(p)).toBe(1);
  });

  test('a job refused at submission (a 400)', async () => {
    const p = await open({}, `
version: 1
name: bad
outputs: out
steps:
  - { id: bad, kind: custom_template, with: { template_id: vid_00000000, name: Bad } }
`);
    expect((await run(p, '--retries', '3')).exitCode).toBe(1);
    expect(statusCounts(p)).toEqual({ rejected: 1 });
    expect(p.sandbox.stats().requests['POST /api/custom_template_jobs/']).toBe(1);
    const [job] = (await status(p)).jobs;
    expect(job?.attempts.map((a) => a.ended)).toEqual(['rejected']);
  });

  test('a job in doubt', async () => {
    const p = await open({ faults: { rates: { errorAfterCreate: 1 } } }, `
version: 1
name: teaser
outputs: out
steps:
  - { id: teaser, kind: boreal, with: { prompt: A shoe in a stream, resolution: 720p, duration: 10 } }
`);
    expect((await run(p, '--retries', '3')).exitCode).toBe(5);
    expect(created(p)).toBe(1);
    expect((await status(p)).jobs[0]?.attempts.map((a) => a.ended)).toEqual(['in doubt']);
  });

  test.each([
    ['fails the job (its reason speaks of credits)', 'fail'],
    ['refuses the creation (402)', 'refuse'],
  ] as const)('a job the account cannot pay for: the service %s, submitting stops (exit 3)', async (_, mode) => {
    const p = await open({ credits: 5, insufficientCredits: mode }, shorts(4, 'concurrency: 1\n'));
    const result = await run(p, '--retries', '3');
    expect(result.exitCode, result.stderr).toBe(3);
    expect(result.stderr).toMatch(/ran out of credits/);
    expect(created(p)).toBe(mode === 'fail' ? 2 : 1);
    expect(p.sandbox.stats().resubmitted.total).toBe(0);
    // Failed at the service (unpaid), or refused and planned again: either way left for a run after a top-up.
    expect(statusCounts(p)).toEqual(mode === 'fail' ? { downloaded: 1, failed: 1, planned: 2 } : { downloaded: 1, planned: 3 });
  });
});
