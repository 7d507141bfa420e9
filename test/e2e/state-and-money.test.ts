import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { created, openProject, STORES, TIME_SCALE, type Project } from './harness.js';

const SHORTS = `
version: 1
name: spring
outputs: out/spring
steps:
  - id: shorts
    kind: ai_short
    for_each: { rows: [{ t: "Spring is here." }, { t: "Fresh colours for the season." }, { t: "Light jackets, bright days." }] }
    name: "short-{{ row.t }}"
    with: { script: "{{ row.t }}", style: 3D, aspect_ratio: 9x16 }
`;

let project: Project | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});


/** A project folder `proj/` with its own package.json: its state lives in proj/state, wherever commands run. */
function projectIn(p: Project): string {
  mkdirSync(join(p.dir, 'proj'));
  p.write('proj/package.json', '{ "name": "marketing", "private": true }\n');
  p.write('proj/spring.yaml', SHORTS);
  return join(p.dir, 'proj');
}

describe('the state database is found from the manifest, not from the working directory', () => {
  test('plan, run, status and retry from another directory use the project\'s state, say so, and never pay twice', async () => {
    project = await openProject();
    const proj = projectIn(project);
    const inside = await project.cli(['run', 'spring.yaml', '--time-scale', TIME_SCALE], {}, proj);
    expect(inside.exitCode, inside.stderr).toBe(0);
    expect(created(project)).toBe(3);

    const plan = await project.cli(['plan', 'proj/spring.yaml']);
    expect(plan.stdout).toContain(`state: ${join(proj, 'state', 'reelpipe.db')}`);
    expect(plan.stdout).toMatch(/shorts .* 3 done/);
    const again = await project.cli(['run', 'proj/spring.yaml', '--time-scale', TIME_SCALE]);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).toContain(`state: ${join(proj, 'state', 'reelpipe.db')}`);
    expect(created(project)).toBe(3);
    expect(existsSync(join(project.dir, 'state'))).toBe(false);
    const status = await project.cli(['status', 'proj/spring.yaml']);
    expect(status.stdout).toContain(`(state ${join(proj, 'state', 'reelpipe.db')})`);
    // retry finds the same state: nothing failed there, so nothing is resubmitted.
    const retry = await project.cli(['retry', 'proj/spring.yaml', '--time-scale', TIME_SCALE]);
    expect(retry.exitCode, retry.stderr).toBe(0);
    expect(retry.stderr).toContain(`state: ${join(proj, 'state', 'reelpipe.db')}`);
    expect(created(project)).toBe(3);
    expect(existsSync(join(project.dir, 'state'))).toBe(false);
  });

  test('an outputs folder filled under another state database is refused (exit 2), naming both, before anything is sent', async () => {
    project = await openProject();
    const proj = projectIn(project);
    expect((await project.cli(['run', 'proj/spring.yaml', '--time-scale', TIME_SCALE])).exitCode).toBe(0);
    const requests = project.sandbox.stats().requests;
    const other = await project.cli(['run', 'proj/spring.yaml', '--state', 'elsewhere.db', '--time-scale', TIME_SCALE]);
    expect(other.exitCode).toBe(2);
    expect(other.stderr).toContain(`${join(proj, 'out', 'spring')} belongs to the state database ${join(proj, 'state', 'reelpipe.db')}, but this command uses ${join(project.dir, 'elsewhere.db')}`);
    expect(project.sandbox.stats().requests).toEqual(requests);
    expect(created(project)).toBe(3);
  });

  test('a zero-byte state file is not a fresh state when the outputs folder shows earlier runs: exit 2, nothing resent', async () => {
    project = await openProject();
    const proj = projectIn(project);
    expect((await project.cli(['run', 'proj/spring.yaml', '--time-scale', TIME_SCALE])).exitCode).toBe(0);
    const db = join(proj, 'state', 'reelpipe.db');
    for (const suffix of ['', '-wal', '-shm']) if (existsSync(db + suffix)) writeFileSync(db + suffix, '');
    const run = await project.cli(['run', 'proj/spring.yaml', '--time-scale', TIME_SCALE]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/the state database .*reelpipe\.db is not the one that filled .*out\/spring: it knows no job of this manifest, .*deleted, emptied or replaced/);
    expect(created(project)).toBe(3);
  });

  // plan gives run's verdict on the outputs folder's owner, and writes nothing (the emptied file stays empty).
  test.each([
    ['an emptied state database', (proj: string) => writeFileSync(join(proj, 'state', 'reelpipe.db'), ''), [] as string[], 'proj/state/reelpipe.db'],
    ['a deleted state database', (proj: string) => rmSync(join(proj, 'state'), { recursive: true }), [] as string[], 'proj/state'],
    ['another state database', () => undefined, ['--state', 'elsewhere.db'], 'elsewhere.db'],
  ])('plan refuses as run does with %s: exit 2, the same message', async (_what, lose, flags, used) => {
    project = await openProject();
    const proj = projectIn(project);
    expect((await project.cli(['run', 'proj/spring.yaml', '--time-scale', TIME_SCALE])).exitCode).toBe(0);
    for (const suffix of ['-wal', '-shm']) rmSync(join(proj, 'state', `reelpipe.db${suffix}`), { force: true });
    lose(proj);
    const plan = await project.cli(['plan', 'proj/spring.yaml', ...flags]);
    expect(plan.exitCode, plan.stderr).toBe(2);
    expect(plan.stdout).not.toMatch(/not submitted/);
    const refusal = plan.stderr.trim().split('\n').at(-1) ?? '';
    expect(refusal).toMatch(/^reelpipe: .*(is not the one that filled|belongs to the state database)/);
    // Nothing written: the state database that command uses is still as empty (or as absent) as it was.
    expect(statSync(join(project.dir, used), { throwIfNoEntry: false })?.size ?? 0).toBe(0);
    const run = await project.cli(['run', 'proj/spring.yaml', ...flags, '--time-scale', TIME_SCALE]);
    expect(run.exitCode, run.stderr).toBe(2);
    expect(run.stderr.trim().split('\n').at(-1)).toBe(refusal);
    expect(created(project)).toBe(3);
  });

  test('outputs that predate the owner record, with a state that knows none of the jobs, are refused too', async () => {
    project = await openProject();
    const proj = projectIn(project);
    mkdirSync(join(proj, 'out', 'spring', 'shorts'), { recursive: true });
    writeFileSync(join(proj, 'out', 'spring', 'shorts', 'short-Spring-is-here.mp4'), 'old');
    const run = await project.cli(['run', 'proj/spring.yaml', '--time-scale', TIME_SCALE]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/holds files from earlier runs \(shorts\), but the state database .* knows no job of this manifest/);
    expect(created(project)).toBe(0);
  });
});

describe('sandbox runs', () => {
  test('never share an outputs folder with real runs: theirs is OUTPUTS.sandbox', async () => {
    project = await openProject();
    project.write('spring.yaml', SHORTS);
    const run = await project.cli(['run', 'spring.yaml', '--sandbox', '--sandbox-speed', '100000']);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain(`outputs: ${join(project.dir, 'out', 'spring.sandbox')}`);
    expect(existsSync(join(project.dir, 'out', 'spring.sandbox', 'shorts'))).toBe(true);
    expect(existsSync(join(project.dir, 'out', 'spring'))).toBe(false);
    const owner = JSON.parse(readFileSync(join(project.dir, 'out', 'spring.sandbox', '.reelpipe-state.json'), 'utf8')) as { state: string; identity: string };
    expect(owner).toMatchObject({ state: join(project.dir, 'state', 'sandbox.db'), identity: 'spring' });
  });
});

describe('plan and run give the same budget verdict', () => {
  const MIXED = `
version: 1
name: mixed
outputs: out
budget: { max_credits: 500 }
steps:
  - id: product
    kind: link_with_params
    with: { title: Trail Runner, image_urls: [https://example.com/tr.jpg] }
  - id: short
    kind: ai_short
    with: { script: "Every trail starts with one step.", style: 3D, aspect_ratio: 9x16 }
`;
  test('one unpriced step under a cap: plan exits 3 with the same reason run gives, and nothing is sent', async () => {
    project = await openProject();
    project.write('mixed.yaml', MIXED);
    const plan = await project.cli(['plan', 'mixed.yaml']);
    const run = await project.cli(['run', 'mixed.yaml', '--time-scale', TIME_SCALE]);
    expect([plan.exitCode, run.exitCode]).toEqual([3, 3]);
    const reason = /nobody prices the jobs still to submit of product \(link_with_params, 1 job\)/;
    expect(plan.stderr).toMatch(reason);
    expect(run.stderr).toMatch(reason);
    expect(project.sandbox.stats().requests).toEqual({});
  });

  test('a finished manifest whose past spend is over a lowered cap exits 0 with nothing to do', async () => {
    project = await openProject();
    project.write('spring.yaml', SHORTS);
    expect((await project.cli(['run', 'spring.yaml', '--time-scale', TIME_SCALE])).exitCode).toBe(0);
    const plan = await project.cli(['plan', 'spring.yaml', '--max-credits', '1']);
    expect(plan.exitCode, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(/budget: 1 — nothing left to submit, beside 15 already spent/);
    const run = await project.cli(['run', 'spring.yaml', '--max-credits', '1', '--time-scale', TIME_SCALE]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(created(project)).toBe(3);
  });
});

// Why 60 s: five runs of the CLI, four of them killed, on PostgreSQL each opening a connection, on a busy machine.
describe.each(STORES)('the cap across kills and resumes, on %s', { timeout: 60_000 }, (store) => {
  test('a batch killed at every kind of instant and resumed never spends more than its cap in total', async () => {
    project = await openProject({ store });
    // 60 words: 5 credits expected (and charged), 10 at the high end, which is what each job
    // reserves. 12 jobs expect 60 = the cap, so the plan passes and the reservations bind.
    const words = `${'fresh colours light jackets bright days '.repeat(9)}made for long walks`;
    const rows = Array.from({ length: 12 }, (_, i) => `{ t: "Take ${i + 1}: ${words}" }`).join(', ');
    project.write('capped.yaml', `
version: 1
name: capped
outputs: out
concurrency: 3
budget: { max_credits: 60 }
steps:
  - id: shorts
    kind: ai_short
    for_each: { rows: [${rows}] }
    with: { script: "{{ row.t }}", style: 3D, aspect_ratio: 9x16 }
`);
    const codes: (number | string)[] = [];
    for (const kill of ['after-post:2', 'before-post:2', 'after-poll:1', 'after-post:1', '']) {
      const run = await project.cli(['run', 'capped.yaml', '--time-scale', TIME_SCALE], kill ? { REELPIPE_TEST_KILL_AT: kill } : {});
      codes.push(run.signal ?? run.exitCode ?? -1);
    }
    const { charged, refunded } = project.sandbox.stats().credits;
    expect(charged - refunded, `exits ${codes.join(', ')}`).toBeLessThanOrEqual(60);
    expect(charged - refunded).toBeGreaterThan(0);
    const [spent] = await project.rows<{ n: number }>('SELECT sum(coalesce(credits_used, credits_reserved) + credits_prior) AS n FROM jobs WHERE status <> \'planned\'');
    expect(spent?.n ?? 0).toBeLessThanOrEqual(60);
    // The two kills around the first POSTs always land (every run posts before it polls); whether
    // the later ones do depends on what the cap still lets a run send, so they are not counted on.
    expect(codes.slice(0, 2), `exits ${codes.join(', ')}`).toEqual(['SIGKILL', 'SIGKILL']);
    expect(codes.slice(2).every((c) => c === 'SIGKILL' || c === 0 || c === 3 || c === 4 || c === 5), `exits ${codes.join(', ')}`).toBe(true);
  });
});
