import { mkdirSync, readFileSync, realpathSync, symlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { execa } from 'execa';
import { afterEach, describe, expect, test } from 'vitest';
import { openStore } from '../../src/state/index.js';
import { CLI } from '../helpers/cli.js';
import { created, openProject, TIME_SCALE, type Project } from './harness.js';

const SHORT = `
version: 1
name: one
outputs: out
steps:
  - id: short
    kind: ai_short
    with: { script: "Every trail starts with one step.", aspect_ratio: 16x9, style: 4K realistic }
`;

let project: Project | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

/** A deployed release (a checkout) reached through a `current` symlink, as cron jobs do (`cd /srv/app/current`). */
function release(p: Project): void {
  mkdirSync(join(p.dir, 'release-1'));
  p.write('release-1/package.json', '{ "private": true }\n');
  p.write('release-1/m.yaml', SHORT);
  symlinkSync(join(p.dir, 'release-1'), join(p.dir, 'current'));
}


describe('a manifest is the file, not the path that reached it', () => {
  test('run again through a symlinked directory: nothing is submitted again', async () => {
    project = await openProject();
    release(project);
    const first = await project.cli(['run', 'release-1/m.yaml', '--time-scale', TIME_SCALE]);
    expect(first.exitCode, first.stderr).toBe(0);
    const before = created(project);
    expect(before).toBe(1);

    const again = await project.cli(['run', 'current/m.yaml', '--time-scale', TIME_SCALE]);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(created(project)).toBe(before);
    expect(project.sandbox.stats().duplicates.total).toBe(0);
    // One state, found from the manifest's real place whichever path reached it.
    expect(project.queryAt<{ manifest: string }>(join(project.dir, 'release-1', 'state', 'reelpipe.db'), 'SELECT DISTINCT manifest FROM jobs')).toHaveLength(1);
  });

  test('a run through the other path takes the same lock: exit 75 while the first runs', async () => {
    // A sandbox so slow the first run's job cannot finish: it holds the lock, tracking, until
    // told to stop, so the second run always meets it (never a race with the first finishing).
    project = await openProject({ speed: 0.0001 });
    release(project);
    const env = { ...process.env, REELPIPE_BASE_URL: project.sandbox.url, REELPIPE_API_ID: 'e2e-api-id', REELPIPE_API_KEY: 'e2e-api-key-secret' };
    const first = execa('node', [CLI, 'run', 'release-1/m.yaml', '--time-scale', '0.03'], { cwd: project.dir, env, reject: false });
    await new Promise<void>((resolve) => {
      first.stderr?.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('submitted')) resolve();
      });
    });
    const second = await project.cli(['run', 'current/m.yaml', '--time-scale', '0.03']);
    first.kill('SIGINT');
    await first;
    expect(second.exitCode, second.stderr).toBe(75);
    expect(second.stderr).toMatch(/another run \(pid \d+/);
  }, 60_000);
});

/** Two checkouts of one project, each with its own copy of the manifest; `--state` shared between them. */
function checkouts(p: Project, text = SHORT): { a: string; b: string } {
  for (const dir of ['a', 'b']) {
    mkdirSync(join(p.dir, dir));
    p.write(`${dir}/package.json`, '{ "private": true }\n');
    p.write(`${dir}/m.yaml`, text);
  }
  return { a: realpathSync(join(p.dir, 'a', 'm.yaml')), b: realpathSync(join(p.dir, 'b', 'm.yaml')) };
}

const posts = (p: Project) => Object.entries(p.sandbox.stats().requests).filter(([key]) => key.startsWith('POST')).reduce((n, [, count]) => n + count, 0);
const SHARED = ['--state', 'shared.db', '--time-scale', TIME_SCALE];

/** Every row of every table of the state at `path`, to tell whether a command changed anything. */
function dump(path: string): Record<string, unknown[]> {
  const db = new Database(path, { readonly: true });
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all() as string[];
    return Object.fromEntries(tables.map((t) => [t, db.prepare(`SELECT * FROM ${t}`).all()]));
  } finally {
    db.close();
  }
}

/** Keys the state at `path` as an older reelpipe did: every row of `identity` under the real path `file`, its runs' paths forgotten. */
function keyByPath(path: string, identity: string, file: string): void {
  const db = new Database(path);
  try {
    const tables = db.prepare("SELECT m.name FROM sqlite_master m JOIN pragma_table_info(m.name) c WHERE m.type = 'table' AND c.name = 'manifest'").pluck().all() as string[];
    db.pragma('foreign_keys = OFF');
    for (const table of tables) db.prepare(`UPDATE ${table} SET manifest = ? WHERE manifest = ?`).run(file, identity);
    db.prepare('UPDATE runs SET manifest_path = NULL').run();
    db.prepare("DELETE FROM events WHERE type = 'manifest:moved'").run();
  } finally {
    db.close();
  }
}

describe('a manifest is known by its name, not its path', () => {
  test('the same manifest copied to another checkout runs against the same --state with zero new POSTs, and says where it last ran from, once', async () => {
    project = await openProject();
    const { a, b } = checkouts(project);
    const first = await project.cli(['run', 'a/m.yaml', ...SHARED]);
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.stderr).not.toMatch(/was last run from/);
    const sent = posts(project);
    expect(sent).toBe(1);

    const copy = await project.cli(['run', 'b/m.yaml', ...SHARED]);
    expect(copy.exitCode, copy.stderr).toBe(0);
    expect(posts(project)).toBe(sent);
    expect(project.sandbox.stats().duplicates.total).toBe(0);
    expect(copy.stderr.match(/one was last run from .* on .*/g)).toEqual([`one was last run from ${a} on ${hostname()}`]);
    const state = join(project.dir, 'shared.db');
    expect(project.queryAt<{ manifest: string }>(state, 'SELECT DISTINCT manifest FROM jobs')).toEqual([{ manifest: 'one' }]);
    expect(project.queryAt(state, 'SELECT manifest_path, host FROM runs ORDER BY id')).toEqual([{ manifest_path: a, host: hostname() }, { manifest_path: b, host: hostname() }]);
    expect(project.queryAt<{ data: string }>(state, "SELECT data FROM events WHERE type = 'manifest:moved'").map((e) => JSON.parse(e.data) as unknown)).toEqual([{ from: a, host: hostname(), to: b }]);
    // Said once: the next run from the same place has nothing to say.
    const again = await project.cli(['run', 'b/m.yaml', ...SHARED]);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).not.toMatch(/was last run from/);
    expect(posts(project)).toBe(sent);
    // The outputs folder's owner names the state and the manifest's identity, not its path.
    expect(JSON.parse(readFileSync(join(project.dir, 'b', 'out', '.reelpipe-state.json'), 'utf8'))).toEqual({ stateId: expect.any(String), state: state, identity: 'one' });
  });

  test.each([['status'], ['runs']])("a state an older reelpipe keyed by the manifest's path is re-keyed by the first command (%s), and the run after it sends nothing", async (command) => {
    project = await openProject();
    const { a } = checkouts(project);
    expect((await project.cli(['run', 'a/m.yaml', ...SHARED])).exitCode).toBe(0);
    const state = join(project.dir, 'shared.db');
    keyByPath(state, 'one', a);
    const sent = posts(project);

    const first = await project.cli([command, 'a/m.yaml', '--state', 'shared.db']);
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.stderr).toContain(`one: the state's records of ${a} (1 job, 1 run) are kept under its name now`);
    for (const table of ['jobs', 'attempts', 'outputs', 'charges', 'runs', 'events']) {
      expect(project.queryAt(state, `SELECT DISTINCT manifest FROM ${table}`), table).toEqual([{ manifest: 'one' }]);
    }
    expect(project.queryAt(state, 'SELECT manifest_path FROM runs')).toEqual([{ manifest_path: a }]);

    const run = await project.cli(['run', 'a/m.yaml', ...SHARED]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).not.toMatch(/are kept under its name now|was last run from/);
    expect(posts(project)).toBe(sent);
  });

  test('two paths of one name, each with jobs in the state: refused (exit 2) naming both and the project: that tells them apart, nothing changed', async () => {
    project = await openProject();
    const { a, b } = checkouts(project);
    const state = join(project.dir, 'shared.db');
    // As an older reelpipe left them: the two copies' jobs, each under its own real path.
    const store = await openStore(state);
    await store.syncPlan(a, [{ key: 'short:aaaaaaaaaaaa', step: 'short', kind: 'ai_short', request: { script: 'a' }, creditsEstimated: 1 }]);
    await store.syncPlan(b, [{ key: 'short:bbbbbbbbbbbb', step: 'short', kind: 'ai_short', request: { script: 'b' }, creditsEstimated: 1 }]);
    await store.close();
    const before = dump(state);

    for (const command of [['plan', 'a/m.yaml'], ['status', 'b/m.yaml'], ['run', 'a/m.yaml', '--time-scale', TIME_SCALE], ['runs', 'a/m.yaml']]) {
      const refused = await project.cli([...command, '--state', 'shared.db']);
      expect(refused.exitCode, command.join(' ')).toBe(2);
      expect(refused.stderr, command.join(' ')).toContain(`the state database ${state} holds the jobs of 2 manifests known by that name: `);
      // This manifest's path first, the other's after it.
      const [mine, other] = command[1] === 'a/m.yaml' ? [`\`project: a\` in ${a}`, `\`project: b\` in ${b}`] : [`\`project: b\` in ${b}`, `\`project: a\` in ${a}`];
      expect(refused.stderr).toContain(`give each its own top-level \`project:\` (e.g. ${mine} and ${other})`);
      expect(refused.stderr).toMatch(/nothing was changed$/m);
    }
    expect(dump(state)).toEqual(before);
    expect(posts(project)).toBe(0);

    // A project of its own tells them apart: each keeps its own jobs, under its own identity.
    project.write('a/m.yaml', SHORT.replace('name: one', 'name: one\nproject: a'));
    const plan = await project.cli(['plan', 'a/m.yaml', '--state', 'shared.db']);
    expect(plan.exitCode, plan.stderr).toBe(0);
    const status = await project.cli(['status', 'b/m.yaml', '--state', 'shared.db']);
    expect(status.exitCode, status.stderr).toBe(0);
    expect(project.queryAt(state, 'SELECT manifest, key FROM jobs ORDER BY manifest')).toEqual([
      { manifest: 'a/one', key: 'short:aaaaaaaaaaaa' },
      { manifest: 'one', key: 'short:bbbbbbbbbbbb' },
    ]);
  });
});
