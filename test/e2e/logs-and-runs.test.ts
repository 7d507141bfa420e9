import { existsSync, readFileSync } from 'node:fs';
import { hostname as osHostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { STORES, TIME_SCALE, openProject, type Project } from './harness.js';
import { scriptsCsv, shortsManifest } from './shorts-fixture.js';

const SECRETS = ['e2e-api-key-secret', 'e2e-api-id'];

interface Line { level: number; runId: number; key?: string; label?: string; msg: string; method?: string; host?: string; path?: string; status?: unknown; durationMs?: number; bytes?: number }

/**
 * Run RUN-ID's log file as the project's store names it: `state/logs/RUN-ID.ndjson` beside the
 * default SQLite state, `state/logs/pg-HOST-PORT-DATABASE-RUN-ID-RUNHOST.ndjson` beside a PostgreSQL
 * one, which several hosts may share (the run's host: this machine's name, no REELPIPE_HOST set).
 */
function logFile(project: Project, runId: number): string {
  if (project.store === 'sqlite') return join(project.dir, 'state', 'logs', `${runId}.ndjson`);
  const { hostname, port, pathname } = new URL(project.state);
  return join(project.dir, 'state', 'logs', `pg-${hostname}-${port}-${pathname.slice(1)}-${runId}-${osHostname().replace(/[^A-Za-z0-9._-]/g, '_')}.ndjson`);
}

describe.each(STORES)('on %s', (store) => {
  let project: Project;
  let lines: Line[];
  let logText: string;
  beforeAll(async () => {
    project = await openProject({ store });
    project.write('scripts.csv', scriptsCsv());
    project.write('nightly.yaml', shortsManifest('nightly'));
    project.write('crashy.yaml', shortsManifest('crashy'));
    const run = await project.cli(['run', 'nightly.yaml', '--time-scale', TIME_SCALE]);
    expect(run.exitCode, run.stderr).toBe(0);
    logText = readFileSync(logFile(project, 1), 'utf8');
    lines = logText.trimEnd().split('\n').map((line) => JSON.parse(line) as Line);
  });
  afterAll(() => project.close());

  describe("a run's log file (state/logs/RUN-ID.ndjson)", () => {
    test('every line is JSON with the run id; a line about a job has its key and label; credentials never appear', () => {
      expect(lines.length).toBeGreaterThan(10);
      expect(lines.every((line) => line.runId === 1)).toBe(true);
      const labels = new Set(lines.filter((l) => l.key !== undefined).map((l) => `${l.key} ${l.label}`));
      expect([...labels].map((l) => l.replace(/:[0-9a-f]{12}/, ':KEY')).sort()).toEqual(['shorts:KEY short-TR-1', 'shorts:KEY short-TR-2', 'shorts:KEY short-TR-3']);
      for (const secret of SECRETS) expect(logText).not.toContain(secret);
      expect(lines[0]).toMatchObject({ msg: 'run started', manifest: join(project.dir, 'nightly.yaml'), jobs: 3 });
      expect(lines.at(-1)).toMatchObject({ msg: 'run finished', outcome: 'OK' });
    });

    test("each request at debug: method, path, status and duration; a job's own requests name it", () => {
      const requests = lines.filter((l) => l.msg === 'request');
      expect(requests.every((r) => r.level === 20 && typeof r.method === 'string' && r.path?.startsWith('/') && typeof r.status === 'number' && typeof r.durationMs === 'number')).toBe(true);
      // The files' downloads too: one per job, each naming it, its path without the signed query.
      const downloads = requests.filter((r) => !r.path?.startsWith('/api/'));
      expect(downloads.map((d) => [d.method, d.label, d.status, typeof d.bytes]).sort()).toEqual(
        ['short-TR-1', 'short-TR-2', 'short-TR-3'].map((label) => ['GET', label, 200, 'number']),
      );
      expect(downloads.every((d) => typeof d.host === 'string' && !d.path?.includes('?'))).toBe(true);
      const posts = requests.filter((r) => r.method === 'POST');
      expect(posts.map((p) => p.label).sort()).toEqual(['short-TR-1', 'short-TR-2', 'short-TR-3']);
      // A list read serves every job it names: it names none (not the job that started the polling).
      const lists = requests.filter((r) => r.path?.includes('?ids='));
      expect(lists.length).toBeGreaterThan(0);
      expect(lists.filter((r) => r.key !== undefined)).toEqual([]);
    });
  });

  describe('reelpipe logs', () => {
    test('--job LABEL: only that job, readably, each line with its ISO time', async () => {
      const result = await project.cli(['logs', 'nightly.yaml', '--job', 'short-TR-2']);
      expect(result.exitCode, result.stderr).toBe(0);
      const shown = result.stdout.trimEnd().split('\n');
      expect(shown.length).toBeGreaterThanOrEqual(2);
      expect(shown.every((line) => /^\d{4}-\d\d-\d\dT[\d:.]+(Z|[+-]\d\d:\d\d) (INFO|WARN): short-TR-2 \(shorts:[0-9a-f]{12}\) {2}\S/.test(line))).toBe(true);
      expect(result.stdout).toMatch(/ {2}submitted /);
      expect(result.stdout).not.toMatch(/short-TR-[13]/);
    });

    test('--json passes the lines through as written; --level debug adds the requests; a key works as well as a label', async () => {
      const key = lines.find((l) => l.label === 'short-TR-1')!.key!;
      const result = await project.cli(['logs', 'nightly.yaml', '--job', key, '--level', 'debug', '--json']);
      expect(result.exitCode, result.stderr).toBe(0);
      const shown = result.stdout.trimEnd().split('\n');
      for (const line of shown) expect(logText).toContain(`${line}\n`);
      expect(shown.map((line) => (JSON.parse(line) as Line).key)).toEqual(shown.map(() => key));
      expect(shown.some((line) => (JSON.parse(line) as Line).msg === 'request')).toBe(true);
    });

    test('nothing at the level asked: said on stderr, exit 0; a bad level or run is a usage error', async () => {
      const none = await project.cli(['logs', 'nightly.yaml', '--level', 'error']);
      expect([none.exitCode, none.stdout]).toEqual([0, '']);
      expect(none.stderr).toMatch(/^no line of run 1 at level error or above/);
      const bad = await project.cli(['logs', 'nightly.yaml', '--level', 'loud']);
      expect([bad.exitCode, bad.stderr]).toEqual([2, expect.stringContaining('--level loud: not a level; use one of trace, debug, info, warn, error, fatal')]);
      const missing = await project.cli(['logs', 'nightly.yaml', '--run', '9']);
      expect([missing.exitCode, missing.stderr]).toEqual([2, expect.stringContaining('--run 9: no such run of')]);
    });
  });

  describe('reelpipe runs', () => {
    test('lists past runs: start, end, outcome, exit code, jobs per state and credits; a killed run shows as died', async () => {
      // Killed once its three jobs are recorded at the service (a kill at its first read could come
      // before the third POST's answer was committed, and leave that job in doubt).
      const killed = await project.cli(['run', 'crashy.yaml', '--time-scale', TIME_SCALE], { REELPIPE_TEST_KILL_AT: 'after-submit:3' });
      expect(killed.signal).toBe('SIGKILL');
      const died = JSON.parse((await project.cli(['runs', 'crashy.yaml', '--json'])).stdout) as { runs: Record<string, unknown>[] };
      expect(died.runs).toEqual([expect.objectContaining({ state: 'died', finishedAt: null, outcome: null, exitCode: null, jobs: null })]);
      // A killed run's credits are never "?": what its jobs were charged so far, and how many are not priced yet.
      expect(died.runs[0]!.credits).toEqual({ used: expect.any(Number), unknown: expect.any(Number) });
      const again = await project.cli(['run', 'crashy.yaml', '--time-scale', TIME_SCALE]);
      expect(again.exitCode, again.stderr).toBe(0);
      const listed = await project.cli(['runs', 'crashy.yaml', '--json']);
      const { runs, total } = JSON.parse(listed.stdout) as { runs: Record<string, unknown>[]; total: number };
      expect(total).toBe(2);
      const [newest, oldest] = runs;
      expect(newest).toMatchObject({ state: 'finished', outcome: 'OK', exitCode: 0, jobs: { done: 3 } });
      expect(newest!.log).toBe(logFile(project, newest!.id as number));
      expect(existsSync(newest!.log as string)).toBe(true);
      expect(oldest).toMatchObject({ state: 'died', exitCode: null });
      // A run's credits are what the jobs it sent were charged, whenever they settled: the killed run
      // sent the 3 shorts (5 credits each), the second finished them and sent none; the runs sum to 15.
      expect([oldest!.credits, newest!.credits]).toEqual([{ used: 15, unknown: 0 }, { used: 0, unknown: 0 }]);

      const text = await project.cli(['runs', 'crashy.yaml']);
      expect(text.exitCode).toBe(0);
      const rows = text.stdout.trimEnd().split('\n');
      expect(rows[0]).toBe(`${join(project.dir, 'crashy.yaml')} (state ${project.state}): 2 runs`);
      expect(rows[1]).toMatch(/^RUN +HOST +STARTED +ENDED +TOOK +OUTCOME +EXIT +CHARGED +JOBS AT THE END$/);
      expect(rows[2]).toMatch(/^\d+ +\S+ +\d{4}-\S+ +\d{4}-\S+ +\d+s +OK +0 +0 +3 done$/);
      expect(rows[3]).toMatch(/^\d+ +\S+ +\d{4}-\S+ +died +— +— +15 +—$/);
      expect(rows[4]).toMatch(/^CHARGED: what the service charged for the jobs the run sent/);
    });

    test("a --step run's credits are its own: another step's earlier spending is not taken off them", async () => {
      const more = `  - id: more
    kind: ai_short
    for_each: { csv: scripts.csv }
    name: "more-{{ row.sku }}"
    with: { script: "{{ row.script }} Again.", style: Cinematic, aspect_ratio: 9x16 }`;
      project.write('steps.yaml', shortsManifest('steps', { steps: more }));
      for (const step of ['shorts', 'more']) {
        const run = await project.cli(['run', 'steps.yaml', '--step', step, '--time-scale', TIME_SCALE]);
        expect(run.exitCode, run.stderr).toBe(0);
      }
      const { runs } = JSON.parse((await project.cli(['runs', 'steps.yaml', '--json'])).stdout) as { runs: Record<string, unknown>[] };
      // 3 shorts at 5 credits each run; the second was once counted as 15 − 15 = 0.
      expect(runs.map((r) => r.credits)).toEqual([{ used: 15, unknown: 0 }, { used: 15, unknown: 0 }]);
    });
  });
});
