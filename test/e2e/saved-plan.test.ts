import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { openProject, TIME_SCALE, type Project } from './harness.js';

/**
 * Plan, then apply that plan: `plan --out FILE` saves what was read and approved, and `run --plan
 * FILE` runs exactly it — refused, with nothing sent, once the manifest or its data no longer yield it.
 */
let project: Project;
afterEach(() => project.close());

const MANIFEST = `
version: 1
name: shorts
outputs: out
steps:
  - id: shorts
    kind: ai_short
    name: "short-{{ row.sku }}"
    for_each: { csv: scripts.csv }
    with: { script: "{{ row.script }}", style: 3D, aspect_ratio: 9x16 }
`;
const csv = (b: string) => `sku,script\nA,Crêpes at dawn.\nB,"${b}"\nC,A walk by the river.\n`;
const posts = () => project.sandbox.stats().requests['POST /api/ai_shorts/'] ?? 0;
const requests = () => Object.values(project.sandbox.stats().requests).reduce((n, k) => n + k, 0);

describe('a saved plan', () => {
  test('runs exactly its jobs; a changed CSV refuses it with nothing sent; after a kill it resumes', async () => {
    project = await openProject();
    project.write('m.yaml', MANIFEST);
    project.write('scripts.csv', csv('Hiking boots on sale.'));
    const planned = await project.cli(['plan', 'm.yaml', '--out', 'p.ndjson']);
    expect(planned.exitCode, planned.stderr).toBe(0);
    expect(planned.stdout).toMatch(/changes: \+ 3 to create, ~ 0 to re-create \(changed rows\), = 0 left alone/);
    expect(planned.stdout).toMatch(/this run: 15 credits expected \(low 15, high 15\) for 3 jobs/);
    const lines = readFileSync(join(project.dir, 'p.ndjson'), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines[0]).toMatchObject({ reelpipe: 'plan', format: 1, jobs: 3 });
    expect(lines.slice(1, -1).map((j) => [j.label, j.action])).toEqual([['short-A', 'create'], ['short-B', 'create'], ['short-C', 'create']]);
    expect(lines.at(-1)).toMatchObject({ end: true, jobs: 3 });

    // Killed once its three jobs are at the service: the same plan, run again, resumes it.
    const killed = await project.cli(['run', 'm.yaml', '--plan', 'p.ndjson', '--time-scale', TIME_SCALE], { REELPIPE_TEST_KILL_AT: 'after-submit:3' });
    expect(killed.signal).toBe('SIGKILL');
    const resumed = await project.cli(['run', 'm.yaml', '--plan', 'p.ndjson', '--time-scale', TIME_SCALE]);
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(posts()).toBe(3);
    expect(project.sandbox.stats().duplicates.total).toBe(0);
    const keys = project.query<{ key: string }>('SELECT key FROM jobs ORDER BY key').map((r) => r.key);
    expect(keys).toEqual(lines.slice(1, -1).map((j) => j.key).sort());

    // The data changed since: the plan is refused, naming the jobs that differ, and nothing is sent.
    writeFileSync(join(project.dir, 'scripts.csv'), csv('Hiking boots, half price.'));
    const before = requests();
    const refused = await project.cli(['run', 'm.yaml', '--plan', 'p.ndjson', '--time-scale', TIME_SCALE]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(/no longer yield the plan saved in .*p\.ndjson.*nothing was sent/);
    expect(refused.stderr).toMatch(/\+ short-B \(shorts:\w+\): not in the saved plan/);
    expect(refused.stderr).toMatch(/- short-B \(shorts:\w+\): in the saved plan, no longer yielded by the manifest/);
    expect(requests()).toBe(before);
  });

  test('a plan saved into a folder that cannot be made (a link to nothing) is a local fault naming it, exit 74', async () => {
    project = await openProject();
    project.write('m.yaml', MANIFEST);
    project.write('scripts.csv', csv('Hiking boots on sale.'));
    symlinkSync(join(project.dir, 'gone'), join(project.dir, 'dangling'));
    const refused = await project.cli(['plan', 'm.yaml', '--out', 'dangling/p.ndjson']);
    expect(refused.exitCode).toBe(74);
    expect(refused.stderr).toContain(`the plan could not be saved: ENOENT: no such file or directory, mkdir '${join(project.dir, 'dangling')}'`);
    expect(refused.stderr).not.toMatch(/internal error|\n\s+at /);
    expect(existsSync(join(project.dir, 'gone'))).toBe(false);
  });

  test('the human plan says what a run will create, re-create (with what changed) and leave alone', async () => {
    project = await openProject();
    project.write('m.yaml', MANIFEST);
    project.write('scripts.csv', csv('Hiking boots on sale.'));
    expect((await project.cli(['run', 'm.yaml', '--time-scale', TIME_SCALE])).exitCode).toBe(0);
    project.write('scripts.csv', `${csv('Hiking boots, half price.')}D,Sunset over the bay.\n`);
    const plan = await project.cli(['plan', 'm.yaml']);
    expect(plan.exitCode, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(/changes: \+ 1 to create, ~ 1 to re-create \(changed rows\), = 2 left alone/);
    expect(plan.stdout).toMatch(/~ short-B {2}shorts:\w+ \(was shorts:\w+\) {2}script: "Hiking boots on sale\." → "Hiking boots, half price\."/);
    expect(plan.stdout).toMatch(/\+ short-D {2}shorts:\w+/);
    expect(plan.stdout).toMatch(/this run: 10 credits expected .* for 2 jobs; the manifest's jobs: 20 expected in all/);
  });

  test('a plan file cut short, or altered after it was written, is refused with nothing sent, naming the line', async () => {
    project = await openProject();
    project.write('m.yaml', MANIFEST);
    project.write('scripts.csv', csv('Hiking boots on sale.'));
    expect((await project.cli(['plan', 'm.yaml', '--out', 'p.ndjson'])).exitCode).toBe(0);
    const lines = readFileSync(join(project.dir, 'p.ndjson'), 'utf8').split('\n');
    project.write('cut.ndjson', lines.slice(0, -2).join('\n'));
    project.write('altered.ndjson', lines.map((l, i) => (i === 2 ? l.replace('"action":"create"', '"action":"keep"') : l)).join('\n'));
    project.write('empty.ndjson', '\n\n');
    const before = posts();
    for (const [file, problem] of [
      ['cut.ndjson', /--plan \S*cut\.ndjson: the plan is cut short \(4 lines, no closing line\)/],
      ['altered.ndjson', /--plan \S*altered\.ndjson:5: the plan's jobs were changed after it was written/],
      ['empty.ndjson', /--plan \S*empty\.ndjson: the plan is cut short \(2 lines, no closing line\)/],
    ] as const) {
      const refused = await project.cli(['run', 'm.yaml', '--plan', file, '--time-scale', TIME_SCALE]);
      expect(refused.exitCode, file).toBe(2);
      expect(refused.stderr, file).toMatch(problem);
    }
    expect(posts()).toBe(before);
  });
});
