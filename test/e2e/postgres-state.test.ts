import { cpSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { REPO_ROOT } from '../helpers/cli.js';
import { freshPgDatabase, pgRows, type PgDatabase } from '../helpers/pg-database.js';
import { startPostgres, databaseUrl, type PostgresServer } from '../helpers/postgres-server.js';
import { TIME_SCALE, openProject, type Project } from './harness.js';

/**
 * The state on PostgreSQL, end to end, as an operator meets it: the demo run with its tables in
 * the database and no file named after the address; the same manifest from another folder sending
 * nothing; an unreachable database ending the run before anything is sent; a state copied from
 * SQLite read the same by `status`; a server restarted in the middle of a run, the batch finished
 * by resuming, with nothing paid twice.
 */
const databases: PgDatabase[] = [];
async function database(): Promise<PgDatabase> {
  const db = await freshPgDatabase();
  databases.push(db);
  return db;
}
const rows = <T>(url: string, sql: string): Promise<T[]> => pgRows<T>(sql, url);
afterAll(async () => {
  for (const db of databases) await db.drop();
});

const posts = (project: Project) => Object.entries(project.sandbox.stats().requests).filter(([route]) => route.startsWith('POST ')).reduce((sum, [, n]) => sum + n, 0);

/** Every file and folder under `dir`, relative to it. */
function tree(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((entry) => {
    const path = join(prefix, entry.name);
    return entry.isDirectory() ? [path, ...tree(dir, path)] : [path];
  });
}

describe('the demo on PostgreSQL', () => {
  let project: Project;
  let db: PgDatabase;
  beforeAll(async () => {
    project = await openProject();
    cpSync(join(REPO_ROOT, 'examples'), join(project.dir, 'a', 'examples'), { recursive: true });
    writeFileSync(join(project.dir, 'a', 'package.json'), '{}\n');
    db = await database();
  });
  afterAll(() => project.close());

  test('runs to exit 0 with its tables in PostgreSQL, and no file named after the address', async () => {
    const run = await project.cli(['run', 'examples/demo.yaml', '--state', db.url, '--time-scale', TIME_SCALE], {}, join(project.dir, 'a'));
    expect(run.exitCode, run.stderr).toBe(0);
    const jobs = await rows<{ status: string; n: number }>(db.url, "SELECT status, count(*)::int AS n FROM jobs WHERE manifest = 'demo' GROUP BY status");
    expect(jobs).toEqual([{ status: 'downloaded', n: 9 }]);
    const files = tree(project.dir);
    expect(files.filter((path) => /postgres/i.test(path))).toEqual([]);
    // The run's log is kept beside the project's state, named for the database.
    expect(files.some((path) => path.startsWith(join('a', 'state', 'logs', 'pg-127.0.0.1-')))).toBe(true);
    expect(files.some((path) => path.endsWith('.db'))).toBe(false);
  }, 60_000);

  test('a copy of the examples in another folder is the same manifest: its run sends nothing', async () => {
    cpSync(join(project.dir, 'a'), join(project.dir, 'b'), { recursive: true, filter: (source) => !source.includes(`${join('a', 'state')}`) });
    const before = posts(project);
    const again = await project.cli(['run', 'examples/demo.yaml', '--state', db.url, '--time-scale', TIME_SCALE], {}, join(project.dir, 'b'));
    expect(again.exitCode, again.stderr).toBe(0);
    expect(posts(project)).toBe(before);
    expect(again.stdout + again.stderr).toMatch(/demo was last run from .*a\/examples\/demo\.yaml on /);
  }, 60_000);

  test('status reads the same jobs and totals from a copy of an SQLite state', async () => {
    const sqlite = await project.cli(['run', 'examples/demo.yaml', '--state', join(project.dir, 'x.db'), '--time-scale', TIME_SCALE], {}, join(project.dir, 'b'));
    expect([0, 2]).toContain(sqlite.exitCode);
    const copy = await database();
    // The SQLite state of a fresh folder: its own run of the demo (the outputs folder is b's, owned by the PostgreSQL state).
    cpSync(join(REPO_ROOT, 'examples'), join(project.dir, 'c', 'examples'), { recursive: true });
    writeFileSync(join(project.dir, 'c', 'package.json'), '{}\n');
    const made = await project.cli(['run', 'examples/demo.yaml', '--state', join(project.dir, 'c.db'), '--time-scale', TIME_SCALE], {}, join(project.dir, 'c'));
    expect(made.exitCode, made.stderr).toBe(0);
    const copied = await project.cli(['state', 'copy', join(project.dir, 'c.db'), copy.url]);
    expect(copied.exitCode, copied.stderr).toBe(0);
    const status = async (state: string) => {
      const result = await project.cli(['status', 'examples/demo.yaml', '--json', '--state', state], {}, join(project.dir, 'c'));
      expect(result.exitCode, result.stderr).toBe(0);
      const { jobs, totals } = JSON.parse(result.stdout) as { jobs: unknown[]; totals: unknown };
      return { jobs, totals };
    };
    expect(await status(copy.url)).toEqual(await status(join(project.dir, 'c.db')));
  }, 90_000);
});

test('an unreachable database: exit 74 within 10 s, nothing sent, no secret said', async () => {
  const project = await openProject();
  try {
    cpSync(join(REPO_ROOT, 'examples'), join(project.dir, 'examples'), { recursive: true });
    const started = Date.now();
    const run = await project.cli(['run', 'examples/demo.yaml', '--state', 'postgres://reelpipe:s3cret@127.0.0.1:1/reelpipe', '--time-scale', TIME_SCALE]);
    expect(run.exitCode, run.stderr).toBe(74);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(run.stderr).toMatch(/postgres:\/\/reelpipe@127\.0\.0\.1:1\/reelpipe cannot be reached/);
    expect(run.stdout + run.stderr).not.toContain('s3cret');
    expect(posts(project)).toBe(0);
  } finally {
    await project.close();
  }
}, 30_000);

describe('a server restart in the middle of a run', () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await startPostgres();
  }, 30_000);
  afterAll(() => server?.stop());

  test('120 AI shorts, the server restarted while they render: at most 3 resumes, every job done once, credits equal', async () => {
    const project = await openProject({ speed: 500 });
    try {
      await rows(server.url, 'CREATE DATABASE restart');
      const url = databaseUrl(server.url, 'restart');
      const scripts = Array.from({ length: 120 }, (_, i) => `        - { sku: s${i}, script: "Short number ${i}: a quick look at the trail." }`).join('\n');
      project.write('night.yaml', `version: 1\nname: night\noutputs: out\nconcurrency: 16\nsteps:\n  - id: shorts\n    kind: ai_short\n    for_each:\n      rows:\n${scripts}\n    name: "short-{{ row.sku }}"\n    with: { script: "{{ row.script }}", aspect_ratio: 9x16, style: Cinematic }\n`);
      const first = project.cli(['run', 'night.yaml', '--state', url, '--time-scale', String(1 / 500)]);
      // Restarted once some jobs were sent and the rest still to send.
      for (let waited = 0; (project.sandbox.stats().created.ai_short ?? 0) < 30 && waited < 400; waited++) await new Promise((r) => setTimeout(r, 50));
      const sentBefore = project.sandbox.stats().created.ai_short ?? 0;
      await server.restart('fast');
      // Mid-run: some jobs sent, not all (16 at a time at most).
      expect(sentBefore).toBeGreaterThanOrEqual(30);
      expect(sentBefore).toBeLessThan(120);
      const firstRun = await first;
      const codes = [firstRun.exitCode];
      const said = [firstRun.stderr];
      while (codes.at(-1) !== 0 && codes.length <= 3) {
        const resumed = await project.cli(['run', 'night.yaml', '--state', url, '--time-scale', String(1 / 500)]);
        codes.push(resumed.exitCode);
        said.push(resumed.stderr);
      }
      expect(codes.at(-1), `exit codes ${codes.join(', ')}:\n${said.join('\n---\n')}`).toBe(0);
      const stats = project.sandbox.stats();
      expect(stats.created.ai_short).toBe(120);
      expect(stats.duplicates.total).toBe(0);
      const [state] = await rows<{ done: number; charged: number }>(url, "SELECT (SELECT count(*)::int FROM jobs WHERE status = 'downloaded') AS done, (SELECT coalesce(sum(charged), 0) FROM charges) AS charged");
      expect(state).toEqual({ done: 120, charged: stats.credits.charged });
    } finally {
      await project.close();
    }
  }, 180_000);
});
