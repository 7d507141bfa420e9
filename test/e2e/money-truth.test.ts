import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { runCli } from '../helpers/cli.js';
import { adsManifest } from '../helpers/ads-manifest.js';
import { freshPgDatabase, type PgDatabase } from '../helpers/pg-database.js';
import { SPEED, STORES, TIME_SCALE } from './harness.js';

/**
 * Every credit and every output accounted for, as the operator is told it: a partly failed HTML ad
 * job (named, exit 1, retried for its failed styles only), an edited row's earlier job (its spend
 * and its file kept), and a job the service rejected at review. Each figure is checked against
 * what the sandbox itself says it charged, net of refunds. On both stores.
 */
let dir: string;
let sandbox: Sandbox | undefined;
let database: PgDatabase | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
  await database?.drop();
  database = undefined;
  rmSync(dir, { recursive: true, force: true });
});

async function serve(options: SandboxOptions): Promise<Sandbox> {
  await sandbox?.close();
  sandbox = await startSandbox({ port: 0, speed: SPEED, seed: 7, credits: 100_000, ...options });
  return sandbox;
}

/** `reelpipe ARGS` against the sandbox, its state in the test's PostgreSQL database if it has one; `run` and `retry` wait at the sandbox's speed. */
const cli = (args: string[]) => {
  const waits = args[0] === 'run' || args[0] === 'retry' ? ['--time-scale', TIME_SCALE] : [];
  const state = database ? { REELPIPE_STATE: database.url } : {};
  return runCli([...args, ...waits], { cwd: dir, timeout: 60_000, env: { REELPIPE_BASE_URL: sandbox!.url, REELPIPE_API_ID: 'id', REELPIPE_API_KEY: 'key-secret', ...state } });
};

/** What the sandbox charged, net of what it refunded. */
const netCharged = (s: Sandbox) => {
  const { charged, refunded } = s.stats().credits;
  return Math.round((charged - refunded) * 100) / 100;
};

interface StatusJson {
  totals: { creditsUsed: number | null; unknownUsed: number; creditsApart: { superseded: number } };
  jobs: { key: string; label: string; state: string; dbStatus: string; creditsUsed: number | null; failedReason: string | null; items: { item: string; state: string; reason: string | null; refunded: number; refundDerived: boolean }[] }[];
}
const statusJson = async (file: string) => JSON.parse((await cli(['status', file, '--json'])).stdout) as StatusJson;

/** The styles whose ad file is on disk (`ads/NAME-STYLE.html`), sorted. */
const adFiles = () => readdirSync(join(dir, 'out', 'ads')).map((name) => /-(scratch-card|spin-wheel|tap-to-reveal|memory-match)\.html$/.exec(name)?.[1]).filter(Boolean).sort();

const ADS = adsManifest('[scratch-card, spin-wheel, tap-to-reveal, memory-match]');

const SHORTS = (second: string) => `
version: 1
name: shorts
outputs: out
steps:
  - id: shorts
    kind: ai_short
    name: "short-{{ row.sku }}"
    for_each: { rows: [{ sku: A, s: "Crêpes at dawn." }, { sku: B, s: "${second}" }, { sku: C, s: "A walk by the river." }] }
    with: { script: "{{ row.s }}", style: 3D, aspect_ratio: 9x16 }
`;

// Why 60 s: a test runs the CLI up to ten times, on PostgreSQL each opening a connection, on a busy machine.
describe.each(STORES)('on %s', { timeout: 60_000 }, (store) => {
  beforeEach(async () => {
    if (store === 'postgres') database = await freshPgDatabase();
  });
  // The commands kept their state where the test said: no SQLite file beside a PostgreSQL state.
  afterEach(() => {
    expect(existsSync(join(dir, 'state', 'reelpipe.db'))).toBe(store === 'sqlite');
  });

  describe('an HTML ad job some of whose ads fail', () => {
    test('is partly failed: exit 1, each failed style named with its reason; retry sends only those styles, and then all four are on disk', async () => {
      dir = mkdtempSync(join(tmpdir(), 'reelpipe-ads-'));
      writeFileSync(join(dir, 'ads.yaml'), ADS);
      const journal = join(dir, 'service.jsonl');
      // Seed 7 draws adTooLarge for the 2nd and 4th of the job's four styles.
      await serve({ journal, faults: { rates: { adTooLarge: 0.5 } } });

      const run = await cli(['run', 'ads.yaml']);
      expect(run.exitCode, run.stderr).toBe(1);
      expect(run.stdout).toMatch(/partly failed .*:\n {2}ads \(ads:\w+\) {2}spin-wheel: The ad does not fit within 5 MB[^;]*; memory-match: The ad does not fit/);
      const status = await statusJson('ads.yaml');
      const ads = status.jobs.find((j) => j.label === 'ads')!;
      expect([ads.state, ads.dbStatus]).toEqual(['partly failed', 'partly_failed']);
      expect(ads.items.map((i) => [i.item, i.state, i.refunded, i.refundDerived])).toEqual([
        ['scratch-card', 'done', 0, false], ['spin-wheel', 'failed', 10, true], ['tap-to-reveal', 'done', 0, false], ['memory-match', 'failed', 10, true],
      ]);
      expect(ads.items.filter((i) => i.state === 'failed').every((i) => /does not fit within 5 MB/.test(i.reason ?? ''))).toBe(true);
      // The service charged 40 and refunded 20: the job cost 20, and every total says the same.
      expect(ads.creditsUsed).toBe(20);
      expect(status.totals.creditsUsed).toBe(netCharged(sandbox!));
      const csv = parse(readFileSync(join(dir, 'out', 'report', 'results.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
      expect(csv.filter((r) => r.step === 'ads')).toHaveLength(1);
      expect(csv.find((r) => r.step === 'ads')?.failed_items).toMatch(/^spin-wheel: The ad does not fit.*; memory-match: The ad does not fit/);
      expect(adFiles()).toEqual(['scratch-card', 'tap-to-reveal']);

      // The same service, restarted without faults: retry asks for the two failed styles only.
      await serve({ journal, faults: 'none' });
      const retry = await cli(['retry', 'ads.yaml', '--failed']);
      expect(retry.exitCode, retry.stderr).toBe(0);
      const made = (await (await fetch(`${sandbox!.url}/api/html_interactive_ads/`, { headers: { 'X-API-ID': 'id', 'X-API-KEY': 'key-secret' } })).json()) as { style_ids: string[] }[];
      expect(made.map((job) => job.style_ids)).toEqual([['spin-wheel', 'memory-match'], ['scratch-card', 'spin-wheel', 'tap-to-reveal', 'memory-match']]);
      expect(adFiles()).toEqual(['memory-match', 'scratch-card', 'spin-wheel', 'tap-to-reveal']);
      const after = await statusJson('ads.yaml');
      expect(after.jobs.find((j) => j.label === 'ads')).toMatchObject({ state: 'done', creditsUsed: 40 });
      expect(after.totals.creditsUsed).toBe(netCharged(sandbox!));
    });
  });

  describe('an edited row', () => {
    test('makes a new job; the old one\'s spend stays in every figure and its video is kept in shorts/superseded/', async () => {
      dir = mkdtempSync(join(tmpdir(), 'reelpipe-edit-'));
      await serve({});
      writeFileSync(join(dir, 'shorts.yaml'), SHORTS('Hiking boots on sale.'));
      expect((await cli(['run', 'shorts.yaml'])).exitCode).toBe(0);
      const first = readFileSync(join(dir, 'out', 'shorts', 'short-B.mp4'));
      const oldKey = (await statusJson('shorts.yaml')).jobs.find((j) => j.label === 'short-B')!.key;

      writeFileSync(join(dir, 'shorts.yaml'), SHORTS('Hiking boots, half price this week.'));
      const plan = JSON.parse((await cli(['plan', 'shorts.yaml', '--json'])).stdout) as { spent: { credits: number; apart: { superseded: number } } };
      const again = await cli(['run', 'shorts.yaml']);
      expect(again.exitCode, again.stderr).toBe(0);
      const charged = netCharged(sandbox!);

      const status = await statusJson('shorts.yaml');
      expect(status.totals.creditsUsed).toBe(charged);
      expect(status.totals.creditsApart.superseded).toBeGreaterThan(0);
      expect((await cli(['status', 'shorts.yaml'])).stdout).toMatch(/of the credits used: [\d.]+ on earlier versions of changed rows/);
      const report = JSON.parse(readFileSync(join(dir, 'out', 'report', 'results.json'), 'utf8')) as { credits: { used: number }; jobs: { label: string; history: { outputs: string[] }[] }[] };
      expect(report.credits.used).toBe(charged);
      const runs = JSON.parse((await cli(['runs', 'shorts.yaml', '--json'])).stdout) as { runs: { credits: { used: number; unknown: number } }[] };
      expect(runs.runs.reduce((sum, r) => sum + r.credits.used, 0)).toBe(charged);
      expect(runs.runs.every((r) => r.credits.unknown === 0)).toBe(true);
      // Planned before the second run: everything the first run was charged is already spent.
      expect(plan.spent.credits).toBe(charged - runs.runs[0]!.credits.used);
      const replan = JSON.parse((await cli(['plan', 'shorts.yaml', '--json'])).stdout) as { spent: { credits: number; apart: { superseded: number } } };
      expect(replan.spent).toMatchObject({ credits: charged, apart: { superseded: status.totals.creditsApart.superseded } });

      // The first video of the edited row is still on disk, recorded, and linked from the new job's history.
      const kept = report.jobs.find((j) => j.label === 'short-B')!.history[0]!.outputs[0]!;
      expect(kept).toBe(`shorts/superseded/short-B-${oldKey.replace(':', '-')}.mp4`);
      expect(readFileSync(join(dir, 'out', kept))).toEqual(first);
      expect(existsSync(join(dir, 'out', 'shorts', 'short-B.mp4'))).toBe(true);

      // The edit undone: the first job is the row's again — its file takes its place back, the
      // second version's moves aside, nothing is sent, and the money is as it was.
      const newKey = (await statusJson('shorts.yaml')).jobs.find((j) => j.label === 'short-B')!.key;
      const posts = sandbox!.stats().requests['POST /api/ai_shorts/'];
      writeFileSync(join(dir, 'shorts.yaml'), SHORTS('Hiking boots on sale.'));
      const undone = await cli(['run', 'shorts.yaml']);
      expect(undone.exitCode, undone.stderr).toBe(0);
      expect(sandbox!.stats().requests['POST /api/ai_shorts/']).toBe(posts);
      expect(existsSync(join(dir, 'out', kept))).toBe(false);
      expect(readFileSync(join(dir, 'out', 'shorts', 'short-B.mp4'))).toEqual(first);
      expect(existsSync(join(dir, 'out', 'shorts', 'superseded', `short-B-${newKey.replace(':', '-')}.mp4`))).toBe(true);
      const back = await statusJson('shorts.yaml');
      expect(back.jobs.find((j) => j.label === 'short-B')).toMatchObject({ key: oldKey, state: 'done' });
      expect(back.totals.creditsUsed).toBe(charged);
    });
  });

  describe('a job the service rejects at review', () => {
    test('is rejected, not failed, in status --json and the report', async () => {
      dir = mkdtempSync(join(tmpdir(), 'reelpipe-rejected-'));
      await serve({ faults: { rates: { jobRejection: 1 } } });
      writeFileSync(join(dir, 'one.yaml'), `
version: 1
name: one
outputs: out
steps:
  - { id: teaser, kind: ai_short, with: { script: "A quiet morning.", style: 3D, aspect_ratio: 9x16 } }
`);
      const run = await cli(['run', 'one.yaml']);
      expect(run.exitCode).toBe(1);
      expect(run.stdout).toMatch(/rejected by the service .*:\n {2}teaser \(teaser:\w+\) {2}Rejected: the input did not pass content review/);
      const job = (await statusJson('one.yaml')).jobs[0]!;
      expect([job.state, job.dbStatus, job.creditsUsed]).toEqual(['rejected', 'rejected', 0]);
      const results = JSON.parse(readFileSync(join(dir, 'out', 'report', 'results.json'), 'utf8')) as { jobs: { state: string; dbStatus: string }[] };
      expect(results.jobs[0]).toMatchObject({ state: 'rejected', dbStatus: 'rejected' });
      expect(readFileSync(join(dir, 'out', 'report', 'index.html'), 'utf8')).toMatch(/<span class="badge rejected">rejected<\/span> <b>teaser<\/b>/);
    });
  });
});
