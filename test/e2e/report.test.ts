import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse } from 'csv-parse/sync';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { renderReport } from '../../src/report/html/render-report.js';
import { REPO_ROOT, runCli, type CliOptions } from '../helpers/cli.js';
import { freshPgDatabase, type PgDatabase } from '../helpers/pg-database.js';
import { reportData, reportJob } from '../report/fixtures/report-data.js';
import { openBrowser, type Browser, type RequestLog } from './browser.js';
import { STORES } from './state-rows.js';

/**
 * The report as a person sees it: the demo (its state on SQLite, then on PostgreSQL) and a run with
 * a failed step, each run on the embedded sandbox by the real CLI, then opened in a real headless
 * Chromium. Screenshots land in out/test/.
 */
const dir = mkdtempSync(join(tmpdir(), 'reelpipe-report-'));
const SCREENSHOTS = join(REPO_ROOT, 'out', 'test');
const cli = (args: string[]) => runCli(args, { cwd: dir, timeout: 60_000 });
let browser: Browser;

beforeAll(async () => {
  cpSync(join(REPO_ROOT, 'examples'), join(dir, 'examples'), { recursive: true });
  browser = await openBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Opens a report, watching every request its page, frames and workers make (browser.ts): one
 * outside `folder` — the outputs folder the report lives in, by default — is recorded and aborted,
 * and one the page's CSP refused is recorded too.
 */
async function open(path: string, folder = dirname(dirname(path))): Promise<{ page: Page; requests: RequestLog }> {
  const requests = browser.watchRequests(folder);
  const page = await browser.context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(pathToFileURL(path).href);
  await page.waitForLoadState('load');
  expect(errors, 'script errors on the page').toEqual([]);
  return { page, requests };
}

/**
 * A page expression (evaluated in Chromium, so written as text: this file is typed for Node):
 * every video has reached readyState `state` (1: its metadata and duration; 2: its first frame).
 */
const videosAtLeast = (state: number) => `[...document.querySelectorAll('video')].every((v) => v.readyState >= ${state} && v.duration > 0)`;

/** A full-page picture; the viewport grows to the page first, so the ads' frames are painted too. */
async function screenshot(page: Page, name: string): Promise<void> {
  const height = await page.evaluate<number>('document.documentElement.scrollHeight');
  await page.setViewportSize({ width: 1280, height });
  // Resizing reloads the players: wait until each shows its first frame.
  await page.waitForFunction(videosAtLeast(2));
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, name) });
}

/** Nothing the page asked for left the folder: none sent elsewhere, none refused by its CSP. */
function expectNothingLeft(requests: RequestLog): void {
  expect({ outside: requests.outside, blocked: requests.blocked }).toEqual({ outside: [], blocked: [] });
}

/**
 * A page expression: each lane the timeline says it drew (its `data-lanes`), with the pixels of
 * its rectangle that are inked at all and those in the colour of a done job (#1f9d6b; an instant
 * job's bar is a pixel or two wide, so an edge pixel, partly covered, counts by its colour).
 */
const TIMELINE_LANES = `(() => {
  const canvas = document.getElementById('timeline');
  const g = canvas.getContext('2d');
  const scale = canvas.width / canvas.clientWidth;
  return JSON.parse(canvas.getAttribute('data-lanes')).map((lane) => {
    const pixels = g.getImageData(lane.x * scale, lane.y * scale, lane.width * scale, lane.height * scale).data;
    let inked = 0, done = 0;
    for (let i = 0; i < pixels.length; i += 4) {
      if (pixels[i + 3] > 0) inked++;
      if (pixels[i + 3] > 0 && Math.abs(pixels[i] - 31) + Math.abs(pixels[i + 1] - 157) + Math.abs(pixels[i + 2] - 107) < 24) done++;
    }
    return { step: lane.step, jobs: lane.jobs, inked, done, area: pixels.length / 4 };
  });
})()`;

const tileValue = (page: Page, what: string) => page.locator('#totals .tile', { has: page.locator(`span:text-is("${what}")`) }).locator('b').textContent();

describe.each(STORES)('the demo\'s report, its state on %s', (store) => {
  // Each store's demo in a folder of its own: an outputs folder belongs to one state.
  const base = store === 'sqlite' ? dir : join(dir, store);
  let database: PgDatabase | undefined;
  /** `--state` naming the PostgreSQL database: beside --sandbox, REELPIPE_STATE is not read. */
  let stateFlags: string[] = [];
  const demo = (args: string[], options: CliOptions = {}) => runCli([...args, ...stateFlags], { cwd: base, timeout: 60_000, ...options });
  let reportPath: string;
  let stdout: string;
  beforeAll(async () => {
    if (store === 'postgres') {
      cpSync(join(REPO_ROOT, 'examples'), join(base, 'examples'), { recursive: true });
      database = await freshPgDatabase();
      stateFlags = ['--state', database.url];
    }
    const run = await demo(['run', 'examples/demo.yaml', '--sandbox']);
    expect(run.exitCode, run.stderr).toBe(0);
    stdout = run.stdout;
    reportPath = join(base, 'out', 'demo.sandbox', 'report', 'index.html');
  }, 60_000);
  afterAll(() => database?.drop());

  test('the run ends by printing the report\'s path', () => {
    expect(stdout.trimEnd().split('\n').at(-1)).toBe(`report: ${reportPath}`);
  });

  test('opens in Chromium with its totals, ten playable outputs, the failures section, and nothing fetched from outside', async () => {
    const { page, requests } = await open(reportPath);
    expect(await tileValue(page, 'jobs')).toBe('9');
    expect(await tileValue(page, 'outputs')).toBe('10');
    expect(await tileValue(page, 'done')).toBe('9');
    const cards = page.locator('#gallery-grid .card');
    expect(await cards.count()).toBe(10);
    // Every card plays: a video with its metadata loaded, or an ad in a sandboxed frame.
    expect(await page.locator('#gallery-grid .card video[controls]').count()).toBe(7);
    expect(await page.locator('#gallery-grid .card iframe[sandbox="allow-scripts"]').count()).toBe(3);
    await page.waitForFunction(videosAtLeast(1));
    for (const frame of page.frames().slice(1)) expect(await frame.locator('#cta').count()).toBe(1);
    expect(await page.locator('#failures h2').textContent()).toBe('Failures and jobs in doubt (0)');
    expect(await page.locator('#gallery-grid .card b').allTextContents()).toEqual(expect.arrayContaining(['short-TR2-BLK', 'clone-de', 'teaser']));
    expectNothingLeft(requests);
    // The page, its seven videos and three ads at least, each from the outputs folder.
    expect(requests.inside.length).toBeGreaterThanOrEqual(11);
    await screenshot(page, store === 'sqlite' ? 'report-demo.png' : `report-demo-${store}.png`);
    await page.close();
  });

  test('draws the timeline: one lane per step, each inked with its jobs\' bars in the colour of their state', async () => {
    const { page, requests } = await open(reportPath);
    const lanes = await page.evaluate<{ step: string; jobs: number; inked: number; done: number; area: number }[]>(TIMELINE_LANES);
    const status = JSON.parse((await demo(['status', 'examples/demo.yaml', '--sandbox', '--json'])).stdout) as { steps: { id: string; jobs: number }[] };
    expect(lanes.map((l) => [l.step, l.jobs])).toEqual(status.steps.map((s) => [s.id, s.jobs]));
    for (const lane of lanes) {
      // Not blank, and drawn: every job of the demo is done, so each lane holds that green.
      expect(lane.done, lane.step).toBeGreaterThan(0);
      expect(lane.inked, lane.step).toBeLessThan(lane.area);
    }
    expectNothingLeft(requests);
    await page.close();
  });

  test('the gallery filters by step and by text', async () => {
    const { page } = await open(reportPath);
    await page.selectOption('#filter-step', { label: 'clones' });
    expect(await page.locator('#gallery-grid .card').count()).toBe(3);
    await page.selectOption('#filter-step', { label: 'all' });
    await page.fill('#filter-text', 'tr2-red');
    expect(await page.locator('#gallery-grid .card b').allTextContents()).toEqual(['short-TR2-RED']);
    await page.close();
  });

  test('results.csv holds every row of the demo\'s CSV once, with its state', () => {
    const input = parse(readFileSync(join(base, 'examples', 'demo-scripts.csv')), { columns: true }) as Record<string, string>[];
    const results = parse(readFileSync(join(dirname(reportPath), 'results.csv')), { columns: true }) as Record<string, string>[];
    expect(results).toHaveLength(9);
    for (const row of input) {
      const lines = results.filter((r) => r.sku === row.sku && r.script === row.script);
      expect(lines.map((r) => [r.state, r.label, r.origin])).toEqual([['done', `short-${row.sku}`, expect.stringMatching(/demo-scripts\.csv:\d+$/)]]);
    }
  });

  test('status --json and plan --json carry each job\'s label, origin, files, times and credits', async () => {
    type Job = { label: string; origin: string | null; state: string; outputs: string[]; submittedAt: string | null; finishedAt: string | null; downloadedAt: string | null; creditsUsed: number | null };
    for (const command of ['status', 'plan']) {
      const json = JSON.parse((await demo([command, 'examples/demo.yaml', '--sandbox', '--json'])).stdout) as { jobs: Job[] };
      const short = json.jobs.find((j) => j.label === 'short-TR2-RED');
      expect(short, command).toMatchObject({ origin: 'examples/demo-scripts.csv:3', state: 'done', creditsUsed: 5, outputs: [join(base, 'out', 'demo.sandbox', 'shorts', 'short-TR2-RED.mp4')] });
      expect([short?.submittedAt, short?.finishedAt, short?.downloadedAt].every((t) => t !== null && !Number.isNaN(Date.parse(t ?? '')))).toBe(true);
      // The product link's cost is never reported: unknown, not 0.
      expect(json.jobs.find((j) => j.label === 'product')?.creditsUsed, command).toBeNull();
    }
  });

  test('reelpipe report --open hands the file to xdg-open, or says there is none', async () => {
    const bin = join(base, 'bin');
    mkdirSync(bin, { recursive: true });
    symlinkSync(process.execPath, join(bin, 'node'));
    const none = await demo(['report', 'examples/demo.yaml', '--sandbox', '--open'], { env: { PATH: bin } });
    expect([none.exitCode, none.stderr]).toEqual([0, `--open: neither xdg-open nor open is on PATH; open ${reportPath} in a browser`]);
    const opened = join(base, 'opened.txt');
    writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\necho "$@" > "${opened}"\n`, { mode: 0o755 });
    const open = await demo(['report', 'examples/demo.yaml', '--sandbox', '--open'], { env: { PATH: bin } });
    expect([open.exitCode, open.stderr]).toEqual([0, '']);
    // The opener is not waited for (a browser may stay open): wait for its mark instead.
    await vi.waitFor(() => expect(readFileSync(opened, 'utf8')).toBe(`${reportPath}\n`), { timeout: 10_000 });
  });

  test('reelpipe report writes it again on demand, for a run given by id, and refuses an unknown one', async () => {
    const again = await demo(['report', 'examples/demo.yaml', '--sandbox', '--run', '1']);
    expect([again.exitCode, again.stdout.split('\n')[0]]).toEqual([0, `report: ${reportPath}`]);
    const unknown = await demo(['report', 'examples/demo.yaml', '--sandbox', '--run', '99']);
    expect([unknown.exitCode, unknown.stderr]).toEqual([2, expect.stringContaining('--run 99: no such run of')]);
  });

  test('reelpipe report into a folder it cannot make (a link to nothing) is a local fault naming it, not an internal error', async () => {
    symlinkSync(join(base, 'gone'), join(base, 'dangling'));
    const refused = await demo(['report', 'examples/demo.yaml', '--sandbox', '--out', join(base, 'dangling', 'report', 'index.html')]);
    expect(refused.exitCode).toBe(74);
    expect(refused.stderr).toContain(`the report could not be written: ENOENT: no such file or directory, mkdir '${join(base, 'dangling', 'report')}'`);
    expect(refused.stderr).not.toMatch(/internal error|\n\s+at /);
  });
});

describe('each job\'s own words', () => {
  // Its own folder, so its own state database: its runs are #1 and #2.
  const folder = join(dir, 'words');
  const long = `A long script. ${'Every trail starts with one step, and every step is a choice. '.repeat(5)}`;
  const manifest = `version: 1
name: words
outputs: out
steps:
  - id: shorts
    kind: ai_short
    name: "short-{{ row.sku }}"
    for_each: { rows: [{ sku: CR-1, script: "Crêpes at dawn." }, { sku: TR-2, script: "A <b>trail</b> shoe & a stream." }, { sku: LONG, script: "${long}" }] }
    with: { script: "{{ row.script }}", style: 3D, aspect_ratio: 9x16 }
  - id: teaser
    kind: boreal
    with: { prompt: Close-up of a trail shoe splashing through a mountain stream, resolution: 720p, duration: 10 }
`;
  const report = join(folder, 'out.sandbox', 'report', 'index.html');
  const words = (page: Page, label: string) => page.locator('#gallery-grid .card', { has: page.locator(`b:text-is("${label}")`) }).locator('.words').textContent();
  const shownLabels = (page: Page) => page.locator('#gallery-grid .card b').allTextContents();
  beforeAll(async () => {
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'words.yaml'), manifest);
    const run = await cli(['run', 'words/words.yaml', '--sandbox']);
    expect(run.exitCode, run.stderr).toBe(0);
  }, 60_000);

  test('each card shows them, cut at 200 characters, markup as text; the header names the run that did the work', async () => {
    const { page, requests } = await open(report);
    expect(await words(page, 'short-CR-1')).toBe('Crêpes at dawn.');
    expect(await words(page, 'short-TR-2')).toBe('A <b>trail</b> shoe & a stream.');
    expect(await page.locator('.words b').count()).toBe(0);
    const cut = await words(page, 'short-LONG');
    expect([cut?.length, cut?.endsWith('…'), long.startsWith(cut!.slice(0, -1))]).toEqual([200, true, true]);
    expect(await words(page, 'teaser')).toBe('Close-up of a trail shoe splashing through a mountain stream');
    expect(await page.locator('#last-work').textContent()).toMatch(/^latest run that did work: run #1, started \d{4}-\d\d-\d\d [\d:]{8} UTC, changed 4 jobs$/);
    expectNothingLeft(requests);
    await screenshot(page, 'report-words.png');
    await page.close();
  });

  test('the search finds a job by a word of its script, whatever its case and accents', async () => {
    const { page } = await open(report);
    for (const text of ['dawn', 'crepes', 'CRÊPES', 'Crêpes at']) {
      await page.fill('#filter-text', text);
      expect(await shownLabels(page), text).toEqual(['short-CR-1']);
    }
    await page.fill('#filter-text', 'stream');
    expect((await shownLabels(page)).sort()).toEqual(['short-TR-2', 'teaser']);
    await page.close();
  });

  test('the timeline\'s hover shows them', async () => {
    const { page } = await open(report);
    const canvas = page.locator('#timeline');
    const box = (await canvas.boundingBox())!;
    const lanes = JSON.parse((await canvas.getAttribute('data-lanes'))!) as { step: string; jobs: number; x: number; y: number; width: number; height: number }[];
    const shorts = lanes.find((lane) => lane.step === 'shorts')!;
    const titles: string[] = [];
    for (let i = 0; i < shorts.jobs; i++) {
      await page.mouse.move(box.x + shorts.x + 4, box.y + shorts.y + (i + 0.5) * (shorts.height / shorts.jobs));
      titles.push((await canvas.getAttribute('title')) ?? '');
    }
    expect(titles).toContainEqual(expect.stringMatching(/^short-CR-1 — done: submitted at .*\nCrêpes at dawn\.$/));
    await page.close();
  });

  test('after a run that changed nothing, the header says so and names the run that did', async () => {
    const again = await cli(['run', 'words/words.yaml', '--sandbox']);
    expect(again.exitCode, again.stderr).toBe(0);
    const { page } = await open(report);
    expect(await page.locator('#last-work').textContent()).toMatch(
      /^the last run did nothing \(run #2, started [^)]+ UTC\); the latest that did work: run #1, started [\d: -]+ UTC, changed 4 jobs$/,
    );
    await page.close();
  });
});

describe('a report with a failed step', () => {
  // Each ad would carry a 20 MB photo against a 5 MB limit: the service fails the job, refunded.
  const manifest = `version: 1
name: with-failures
outputs: out/failures
steps:
  - id: shorts
    kind: ai_short
    for_each: { rows: [{ sku: A-1, script: "First short." }, { sku: "<b>B</b>", script: "Second short." }] }
    with: { script: "{{ row.script }}", style: 3D, aspect_ratio: 9x16 }
  - id: product
    kind: link_with_params
    download: false
    estimate_credits: { low: 0, expected: 0, high: 1 }
    with: { title: Heavy, image_urls: ["https://example.com/heavy.jpg?size_mb=20"] }
  - id: heavy-ads
    kind: html_ads
    with: { link: "{{ steps.product.id }}", style_ids: [quiz-3q], max_size_mb: 5 }
`;

  test('lists the failure with the service\'s reason and what to do, and escapes the row\'s markup', async () => {
    writeFileSync(join(dir, 'failures.yaml'), manifest);
    const run = await cli(['run', 'failures.yaml', '--sandbox']);
    expect(run.exitCode, run.stderr).toBe(1);
    const { page, requests } = await open(join(dir, 'out', 'failures.sandbox', 'report', 'index.html'));
    const failures = page.locator('#failures');
    expect(await failures.locator('h2').textContent()).toBe('Failures and jobs in doubt (1)');
    expect(await failures.locator('li b').textContent()).toBe('heavy-ads');
    // The job's reason, then each of its ads with its own (refunded), then what to do.
    expect(await failures.textContent()).toMatch(/reason: No ad could be built within max_size_mb\.\s*quiz-3q failed: The ad does not fit within 5 MB[^(]* \(refunded 10, derived from the price rule\)\s*what to do: reelpipe retry \S*failures\.yaml/);
    expect(await page.locator('#gallery-grid .card video').count()).toBe(2);
    // The row's markup is shown as text, not made into an element.
    expect(await page.locator('#gallery-grid .card b').allTextContents()).toEqual([
      expect.stringMatching(/^shorts · failures\.yaml:\d+ · A-1$/),
      expect.stringMatching(/^shorts · failures\.yaml:\d+ · <b>B<\/b>$/),
    ]);
    expectNothingLeft(requests);
    await screenshot(page, 'report-failures.png');
    await page.close();
  });
});

describe('the check that nothing leaves the folder', () => {
  test('catches a planted address: one sent outside the folder (aborted), and ones the page\'s CSP refused', async () => {
    const file = join(dir, 'planted', 'report', 'index.html');
    mkdirSync(dirname(file), { recursive: true });
    const planted = '<img src="../../elsewhere.png"><img src="https://example.com/beacon.png">' +
      "<script>fetch('http://127.0.0.1:9/collect').catch(function () {});</script></body>";
    writeFileSync(file, renderReport(reportData([reportJob()]), { outputsHref: '../' }).replace('</body>', planted));
    const { page, requests } = await open(file);
    await vi.waitFor(() => expect(requests.blocked).toHaveLength(2));
    expect(requests.outside).toEqual([pathToFileURL(join(dir, 'elsewhere.png')).href]);
    expect(requests.blocked.sort()).toEqual(['http://127.0.0.1:9/collect', 'https://example.com/beacon.png']);
    expect(requests.inside).toContain(pathToFileURL(file).href);
    await page.close();
  });
});

describe('the gallery\'s cards', () => {
  test('give a video the job\'s picture as its poster, and keep only the run\'s jobs when asked', async () => {
    const file = join(dir, 'posters', 'report', 'index.html');
    mkdirSync(dirname(file), { recursive: true });
    const jobs = [
      reportJob({ outputs: [{ path: 'shorts/a.mp4', media: 'video', bytes: 1 }, { path: 'shorts/a cover.png', media: 'image', bytes: 1 }] }),
      reportJob({ key: 'shorts:2', label: 'short-B', inRun: false }),
    ];
    writeFileSync(file, renderReport(reportData(jobs), { outputsHref: '../' }));
    const { page } = await open(file);
    expect(await page.locator('video[poster]').evaluateAll((videos) => videos.map((v) => v.getAttribute('poster')))).toEqual(['../shorts/a%20cover.png']);
    expect(await page.locator('#gallery-grid .card').count()).toBe(3);
    await page.check('#filter-run');
    expect(await page.locator('#gallery-grid .card b').allTextContents()).toEqual(['short-A', 'short-A']);
    await page.close();
  });
});

describe('a report of 10,000 outputs', () => {
  test('opens with one page of cards, and pages and filters through the rest', async () => {
    const jobs = Array.from({ length: 10_000 }, (_, i) => reportJob({
      key: `shorts:${String(i).padStart(12, '0')}`, label: `short-${i}`, origin: `rows.csv:${i + 2}`, outputs: [{ path: `shorts/short-${i}.mp4`, media: 'video', bytes: 10 }],
    }));
    const file = join(dir, 'big', 'report', 'index.html');
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, renderReport(reportData(jobs), { outputsHref: '../' }));
    const { page } = await open(file);
    expect(await page.locator('#gallery-grid .card').count()).toBe(48);
    expect(await page.locator('#page-info').textContent()).toBe('10000 of 10000 outputs · page 1 of 209');
    await page.click('#page-next');
    expect(await page.locator('#gallery-grid .card b').first().textContent()).toBe('short-48');
    await page.fill('#filter-text', 'short-9999');
    expect(await page.locator('#gallery-grid .card b').allTextContents()).toEqual(['short-9999']);
    await page.close();
  });
});
