import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, test } from 'vitest';
import { CLI } from '../helpers/cli.js';
import { createClient } from '../../src/api/index.js';
import { created, openProject, statusCounts, TIME_SCALE, type Project } from './harness.js';

const clones = (linkId: string, languages: string[], estimate = '{ low: 84, expected: 84, high: 168 }') => `
version: 1
name: clones
outputs: out
steps:
  - id: clones
    kind: ad_clone
    estimate_credits: ${estimate}
    matrix: { language: [${languages.join(', ')}] }
    name: "clone-{{ matrix.language }}"
    with: { link: ${linkId}, video_url: https://example.com/ads/reference.mp4, language: "{{ matrix.language }}" }
`;

let project: Project | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

async function withLink(p: Project, images: string[] = ['https://example.com/tr.jpg']): Promise<string> {
  const client = createClient({ baseUrl: p.sandbox.url, apiId: 'e2e-api-id', apiKey: 'e2e-api-key-secret' });
  try {
    const link = await client.links.createWithParams({ title: 'Trail Runner', image_urls: images });
    if (images.length === 0) throw new Error('unreachable');
    return link.id;
  } finally {
    await client.close();
  }
}


describe('budget', () => {
  test('a cap below the plan exits 3 before anything is submitted', async () => {
    project = await openProject();
    project.write('clones.yaml', clones('5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a', ['de', 'fr']));
    const run = await project.cli(['run', 'clones.yaml', '--max-credits', '100', '--time-scale', TIME_SCALE]);
    expect(run.exitCode).toBe(3);
    expect(run.stderr).toMatch(/over the budget of 100/);
    expect(project.sandbox.stats().requests).toEqual({});
  });

  test('under a cap, jobs of unknown cost are refused before the lock (exit 3), every such step named', async () => {
    project = await openProject();
    project.write('mixed.yaml', `
version: 1
name: mixed
outputs: out
budget: { max_credits: 500 }
steps:
  - id: product
    kind: link_with_params
    download: false
    with: { title: Trail Runner, image_urls: [https://example.com/tr.jpg] }
  - id: avatar
    kind: persona
    download: false
    with: { creator_name: Jordan, gender: nb, gdown_url: https://example.com/j.zip, video_scene: studio, keywords: run, labels: [a], original_voice_provider: provider-a }
  - id: shorts
    kind: ai_short
    with: { script: "Run further.", style: 3D, aspect_ratio: 9x16 }
`);
    const run = await project.cli(['run', 'mixed.yaml', '--time-scale', TIME_SCALE]);
    expect(run.exitCode, run.stderr).toBe(3);
    expect(run.stderr).toMatch(/nobody prices the jobs still to submit of product \(link_with_params, 1 job\), avatar \(persona, 1 job\), so the cap could not be kept\. Nothing was submitted; give each of those steps estimate_credits/);
    expect(project.sandbox.stats().requests).toEqual({});
    expect(existsSync(join(project.dir, 'state'))).toBe(false);
  });

  test('a cap hit at run time stops submitting, and what was spent stays under it', async () => {
    project = await openProject();
    // Expected 3 × 84 = 252 passes a cap of 300; reserving the high end (168 each) does not fit twice.
    project.write('clones.yaml', clones(await withLink(project), ['de', 'fr', 'it']));
    const before = created(project);
    const run = await project.cli(['run', 'clones.yaml', '--max-credits', '300', '--time-scale', TIME_SCALE]);
    expect(run.exitCode, run.stderr + run.stdout).toBe(3);
    expect(run.stdout).toMatch(/stopped early: clone-\w+ \(clones:\w+\) was not submitted: its high estimate of 168 could pass the cap \(at that moment \d+ counted against the cap of 300 and 168 held for jobs in flight\)/);
    const stats = project.sandbox.stats();
    expect(created(project) - before, run.stderr + run.stdout).toBe(1);
    expect(stats.credits.charged).toBeLessThanOrEqual(300);
    expect(statusCounts(project)).toEqual({ downloaded: 1, planned: 2 });
  });

  test('the account running out of credits stops all submitting at once (exit 3)', async () => {
    project = await openProject({ credits: 100 });
    project.write('clones.yaml', clones(await withLink(project), ['de', 'fr', 'it']));
    const run = await project.cli(['run', 'clones.yaml', '--time-scale', TIME_SCALE]);
    expect(run.exitCode, run.stderr).toBe(3);
    expect(run.stderr).toMatch(/ran out of credits/);
    // One clone fits the balance; the first refusal stops the rest, which stay planned for later.
    expect(project.sandbox.stats().created.ad_clone).toBe(1);
    expect(statusCounts(project)).toEqual({ downloaded: 1, planned: 2 });
  });
});

describe('refusals', () => {
  test('a rejected key stops the run with exit 2 and never shows the key', async () => {
    project = await openProject({ apiId: 'right-id', apiKey: 'right-key-123' });
    project.write('clones.yaml', clones('5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a', ['de', 'fr']));
    const run = await project.cli(['run', 'clones.yaml', '--time-scale', TIME_SCALE], { REELPIPE_API_KEY: 'wrong-key-456' });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/refused the credentials/);
    expect(`${run.stdout}${run.stderr}`).not.toContain('wrong-key-456');
    expect(project.query<{ data: string }>('SELECT data FROM events').map((e) => e.data ?? '').join('')).not.toContain('wrong-key-456');
    expect(statusCounts(project)).toEqual({ planned: 2 });
  });

  test("bad input fails that job alone, with the service's message (exit 1)", async () => {
    project = await openProject();
    const noImages = await (async () => {
      const client = createClient({ baseUrl: project!.sandbox.url, apiId: 'e2e-api-id', apiKey: 'e2e-api-key-secret' });
      const scraped = await client.links.create({ url: 'https://shop.example.com/p/one' });
      await client.links.update(scraped.id, { image_urls: [] });
      await client.close();
      return scraped.id;
    })();
    const good = await withLink(project);
    project.write('mixed.yaml', `${clones(good, ['de'])}
  - id: broken
    kind: ad_clone
    estimate_credits: { low: 84, expected: 84, high: 168 }
    with: { link: ${noImages}, video_url: https://example.com/ads/reference.mp4, language: fr }
`);
    const run = await project.cli(['run', 'mixed.yaml', '--time-scale', TIME_SCALE]);
    expect(run.exitCode, run.stderr).toBe(1);
    expect(run.stdout).toMatch(/\nrejected by the service[^\n]*:\n {2}broken \(broken:\w+\) {2}.*link: The link must contain at least one image/);
    expect(run.stderr).toMatch(/1 job was rejected by the service/);
    expect(statusCounts(project)).toEqual({ downloaded: 1, rejected: 1 });
  });
});

describe('in doubt', () => {
  test('a kind that cannot be searched for is held for a decision (exit 5, naming the commands), never resent, until the operator says so', async () => {
    // Every creation answers 500 after creating: always in doubt.
    project = await openProject({ faults: { rates: { errorAfterCreate: 1 } } });
    project.write('boreal.yaml', `
version: 1
name: teaser
outputs: out
steps:
  - id: teaser
    kind: boreal
    with: { prompt: A shoe in a stream, resolution: 720p, duration: 10 }
`);
    const first = await project.cli(['run', 'boreal.yaml', '--time-scale', TIME_SCALE]);
    expect(first.exitCode, first.stderr).toBe(5);
    expect(first.stdout).toMatch(/in doubt \(may exist remotely/);
    expect(first.stderr).toMatch(/1 job in doubt needs a decision .*`reelpipe doubt boreal\.yaml`.*`reelpipe resolve boreal\.yaml JOB --adopt REMOTE_ID` or `--absent`/);
    const second = await project.cli(['run', 'boreal.yaml', '--time-scale', TIME_SCALE]);
    expect(second.exitCode).toBe(5);
    expect(project.sandbox.stats().created.boreal).toBe(1);
    // status says why it is held: how it fell in doubt, and why it stays there.
    const status = await project.cli(['status', 'boreal.yaml']);
    expect(status.stdout).toMatch(/teaser +teaser:\w+ +boreal +in doubt .*in doubt: boreal\.create: HTTP 500[\s\S]*; boreal jobs cannot be listed, so the service cannot be searched/);
    const json = JSON.parse((await project.cli(['status', 'boreal.yaml', '--json'])).stdout) as { jobs: { doubtReason: string }[] };
    expect(json.jobs[0]?.doubtReason).toMatch(/cannot be listed/);

    const operator = await project.cli(['run', 'boreal.yaml', '--resubmit-in-doubt', '--time-scale', TIME_SCALE]);
    // Resent exactly once (it fell in doubt again, so it is held again rather than resent in a loop).
    expect(operator.exitCode).toBe(5);
    expect(operator.stderr).toContain('--resubmit-in-doubt: of the 1 job in doubt, those that cannot be searched for are sent again; each that did exist at the service is then paid for twice');
    expect(project.sandbox.stats().created.boreal).toBe(2);
    expect(project.sandbox.stats().duplicates.total).toBe(1);
  });
});

describe('locking and interruption', () => {
  test('a second concurrent run exits 75 at once; SIGINT stops the first with exit 4; a rerun finishes', async () => {
    // Slow enough that the first run is still tracking when the second starts.
    project = await openProject({ speed: 30 });
    project.write('clones.yaml', clones(await withLink(project), ['de', 'fr']));
    const env = { ...process.env, REELPIPE_BASE_URL: project.sandbox.url, REELPIPE_API_ID: 'e2e-api-id', REELPIPE_API_KEY: 'e2e-api-key-secret' };
    const first = execa('node', [CLI, 'run', 'clones.yaml', '--time-scale', '0.03'], { cwd: project.dir, env, reject: false });
    await new Promise<void>((resolve) => {
      first.stderr?.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('submitted')) resolve();
      });
    });
    const second = await project.cli(['run', 'clones.yaml', '--time-scale', '0.03']);
    expect(second.exitCode).toBe(75);
    expect(second.stderr).toMatch(/another run \(pid \d+/);

    first.kill('SIGINT');
    const ended = await first;
    expect(ended.exitCode).toBe(4);
    expect(ended.stderr).toMatch(/interrupted by SIGINT/);
    // Said as a person would: what stopped it, then what happens now — "stopping" once.
    expect(ended.stderr).toMatch(/ {2}stopping \(SIGINT\): no new jobs are sent; requests in flight settle first\n/);
    const inFlight = statusCounts(project);
    expect((inFlight.submitted ?? 0) + (inFlight.running ?? 0)).toBeGreaterThan(0);

    const resumed = await project.cli(['run', 'clones.yaml', '--time-scale', '0.03'], {});
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(project.sandbox.stats().duplicates.total).toBe(0);
  }, 60_000);
});
