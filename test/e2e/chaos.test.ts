import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { REPO_ROOT } from '../helpers/cli.js';
import { freshPgDatabase, pgRows, type PgDatabase } from '../helpers/pg-database.js';

/**
 * The short version of `npm run chaos` (bench/chaos.js --quick): in polling and in webhook mode,
 * 150 jobs on the hostile profile, the runner SIGKILLed at seeded moments and at named instants,
 * the journalled sandbox SIGKILLed and restarted, re-run until done. Every invariant must hold, on
 * the SQLite store and on PostgreSQL (a test database of its own per mode). Then a kept SQLite
 * workspace is tampered with and judged again: each check must catch what it guards.
 */
const CHAOS = join(REPO_ROOT, 'bench', 'chaos.js');
const INVARIANTS = [
  'jobs lost',
  'duplicate creations',
  'credits: state vs charged',
  'outputs verified by checksum',
  'budget never exceeded',
  'final exit code as documented',
];

interface Row { name: string; verdict: 'PASS' | 'FAIL' | 'SKIP'; figures: string; detail: Record<string, unknown> }
interface Soak {
  store: string;
  mode: string;
  rows: Row[];
  dir: string | null;
  log: { kills: { timed: number; point: number }; sandboxKills: number; settled: boolean; finalCode: number | null };
}
interface Report { held: boolean; soaks: Soak[] }

let dir: string;
let report: Report | undefined;
let stdout: string;

/**
 * Why these bounds: a quick soak kills a run hung past 3 minutes and fails with its report
 * written (bench/chaos/options.js, runTimeoutMs); one mode's soak takes 30–60 s on two busy cores,
 * so both modes and one hung run still end inside `BOTH_MODES_MS` — and a harness killed past it
 * fails the test with its own output, never a missing file.
 */
const ONE_MODE_MS = 300_000;
const BOTH_MODES_MS = 420_000;
const chaos = (args: string[], timeout: number) => execa('node', [CHAOS, ...args], { cwd: REPO_ROOT, reject: false, timeout });
const readReport = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Report;

/** One soak by the harness: what it printed, and its report — none when the harness broke or was killed (each test then shows the output). */
async function soakWith(args: string[], json: string, timeout: number): Promise<{ output: string; report: Report | undefined }> {
  const run = await chaos([...args, '--json', json], timeout);
  const output = `${run.timedOut ? `the harness was killed after ${timeout / 1000} s\n` : ''}${run.stdout}\n${run.stderr.slice(-3000)}`;
  return { output, report: existsSync(json) ? readReport(json) : undefined };
}
const rowOf = (soak: Soak, name: string) => soak.rows.find((r) => r.name === name)!;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'reelpipe-chaos-test-'));
  ({ output: stdout, report } = await soakWith(['--quick', '--both', '--store', 'sqlite', '--keep'], join(dir, 'chaos.json'), BOTH_MODES_MS));
}, BOTH_MODES_MS + 20_000);

afterAll(() => {
  for (const soak of report?.soaks ?? []) if (soak.dir) rmSync(soak.dir, { recursive: true, force: true });
  rmSync(dir, { recursive: true, force: true });
});

/** Every invariant judged and held (the budget too: the quick soak runs under the plan's total as cap), after the kills asked for. */
function expectEveryInvariantHeld(soak: Soak | undefined, output: string): void {
  expect(soak, output).toBeDefined();
  expect(soak!.rows.filter((r) => r.verdict === 'FAIL'), output).toEqual([]);
  expect(soak!.rows.filter((r) => INVARIANTS.includes(r.name)).map((r) => [r.name, r.verdict])).toEqual(INVARIANTS.map((name) => [name, 'PASS']));
  expect(soak!.log.kills.timed).toBeGreaterThanOrEqual(5);
  expect(soak!.log.kills.point).toBeGreaterThanOrEqual(2);
  expect(soak!.log.sandboxKills).toBeGreaterThanOrEqual(1);
  expect(soak!.log.settled).toBe(true);
}

describe('the quick chaos soak', () => {
  test.each(['polling', 'webhooks'])('%s mode: every invariant holds, after real kills of the runner and the sandbox', (mode) => {
    const soak = report?.soaks.find((s) => s.mode === mode);
    expect(soak?.store, stdout).toBe('sqlite');
    expectEveryInvariantHeld(soak, stdout);
  });

  test('the soak exits 0 and says every invariant held', () => {
    expect(report?.held, stdout).toBe(true);
    expect(stdout).toContain('every invariant held');
  });
});

describe('the quick chaos soak on PostgreSQL', () => {
  const MODES = ['polling', 'webhooks'] as const;
  const soaks = new Map<string, { db: PgDatabase; report: Report | undefined; output: string }>();

  // One soak per mode, each on a test database of its own (the harness takes one database per soak).
  beforeAll(async () => {
    for (const mode of MODES) {
      const db = await freshPgDatabase();
      const soak = await soakWith(['--quick', ...(mode === 'webhooks' ? ['--webhooks'] : []), '--state', db.url], join(dir, `chaos-postgres-${mode}.json`), ONE_MODE_MS);
      soaks.set(mode, { db, ...soak });
    }
  }, 2 * ONE_MODE_MS + 20_000);

  afterAll(async () => {
    for (const { db, report: pgReport } of soaks.values()) {
      for (const soak of pgReport?.soaks ?? []) if (soak.dir) rmSync(soak.dir, { recursive: true, force: true });
      await db.drop();
    }
  });

  test.each(MODES)('%s mode: every invariant holds, the state in PostgreSQL', async (mode) => {
    const { db, report: pgReport, output } = soaks.get(mode)!;
    expect(pgReport?.held, output).toBe(true);
    const soak = pgReport!.soaks.find((s) => s.mode === mode);
    expect(soak?.store).toBe('postgres');
    expectEveryInvariantHeld(soak, output);
    // The jobs the invariants judged are the database's: every planned job has its row there.
    expect(await pgRows<{ jobs: number }>('SELECT count(*)::int AS jobs FROM jobs', db.url)).toEqual([{ jobs: 150 }]);
  });
});

describe('the checks catch what they guard', () => {
  test('a tampered workspace: a file altered, a charge miscounted, a job reopened, a body created twice, a cap passed — each fails', async () => {
    const soak = report?.soaks.find((s) => s.mode === 'polling');
    expect(soak?.dir, stdout).toBeTruthy();
    const work = soak!.dir!;
    const db = new Database(join(work, 'state', 'reelpipe.db'));
    let touched: { file: string; charged: string; reopened: string };
    try {
      const file = db
        .prepare("SELECT o.job_key AS key, o.path FROM outputs o JOIN jobs j ON j.key = o.job_key WHERE j.status = 'downloaded' AND o.path IS NOT NULL LIMIT 1")
        .get() as { key: string; path: string };
      writeFileSync(join(work, 'out', file.path), 'not what was downloaded');
      const charged = (db.prepare("SELECT key FROM jobs WHERE status = 'downloaded' AND key <> ? LIMIT 1").get(file.key) as { key: string }).key;
      db.prepare('UPDATE jobs SET credits_used = credits_used + 7 WHERE key = ?').run(charged);
      const reopened = (db.prepare("SELECT key FROM jobs WHERE status = 'failed' LIMIT 1").get() as { key: string }).key;
      db.prepare("UPDATE jobs SET status = 'submitted' WHERE key = ?").run(reopened);
      touched = { file: file.key, charged, reopened };
    } finally {
      db.close();
    }
    // The same lipsync body sent again, on the soak's own journal: a second, paid creation.
    const sandbox = await startSandbox({ port: 0, speed: 1000, journal: join(work, 'service.jsonl') });
    try {
      // One the service made: a body resent after it failed is a resubmission, not a duplicate.
      const lipsync = sandbox.jobs().find((job) => job.kind === 'lipsync_v2' && job.status !== 'failed' && job.status !== 'rejected')!;
      const answer = await fetch(`${sandbox.url}/api/lipsyncs_v2/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-id': 'chaos-id', 'x-api-key': 'chaos-key' },
        body: JSON.stringify(lipsync.body),
      });
      expect(answer.status).toBe(201);
    } finally {
      await sandbox.close();
    }

    const run = await chaos(['--recheck', work, '--max-credits', '100', '--json', join(dir, 'recheck.json')], 100_000);
    expect(run.exitCode, run.stdout).toBe(1);
    const [judged] = readReport(join(dir, 'recheck.json')).soaks;
    const verdicts = Object.fromEntries(judged!.rows.map((r) => [r.name, r.verdict]));
    expect(verdicts).toMatchObject(Object.fromEntries(INVARIANTS.map((name) => [name, 'FAIL'])));
    expect(JSON.stringify(rowOf(judged!, 'outputs verified by checksum').detail.bad)).toContain(touched.file);
    const credits = rowOf(judged!, 'credits: state vs charged').detail;
    expect(JSON.stringify(credits.mismatches)).toContain(touched.charged);
    expect(credits.unexplained).toHaveLength(1);
    expect(rowOf(judged!, 'duplicate creations').figures).toMatch(/^1 /);
    expect(rowOf(judged!, 'jobs lost').detail.open).toEqual([touched.reopened]);
    expect(rowOf(judged!, 'final exit code as documented').detail).toMatchObject({ expected: [4, 3], actual: soak!.log.finalCode });
  }, 120_000);
});
