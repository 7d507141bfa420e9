import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { TIME_SCALE, openProject, statusCounts, type Project } from './harness.js';

/**
 * The issue's hook tests, through the real CLI against the sandbox on loopback: a row's hostile
 * text reaches the hook verbatim as one argument and runs nothing; a kill between an output and
 * its hook runs the hook once on the next run; a failing hook marks its job `hook failed` (exit 1)
 * and `retry --hooks` reruns only it.
 */
const NODE = process.execPath;
/** What a hostile CSV cell holds: command substitution, backticks, quotes, a newline, a path out. */
const HOSTILE = 'Hi $(touch pwned) `touch pwned2` "q" it\'s; rm -rf *\nline two ../../x';

/** The hook: appends its arguments, as JSON, to hook-calls.jsonl in its working directory. */
const RECORD = `import { appendFileSync } from 'node:fs';
appendFileSync('hook-calls.jsonl', JSON.stringify(process.argv.slice(2)) + '\\n');
if (process.env.REELPIPE_API_KEY !== undefined) process.exitCode = 9;
if (process.argv[2] === 'fail' && !process.argv.includes('fixed')) { console.error('upload refused: bucket missing'); process.exitCode = 3; }
`;

const manifest = (hook: string, extra = '') => `
version: 1
name: hooks
outputs: out
hooks:
  on_output: ${hook}
  on_finish: [${NODE}, record.mjs, finish, "{{ run.outcome }}", "{{ totals.done }}", "{{ totals.hook_failed }}", "{{ run.report }}"]
  concurrency: 1
${extra}
steps:
  - id: shorts
    kind: ai_short
    for_each: { csv: rows.csv }
    name: "{{ row.sku }}"
    with: { script: "{{ row.text }}", aspect_ratio: 9x16, style: Cinematic }
`;
const RECORDING = `[${NODE}, record.mjs, "{{ row.text }}", "{{ job.label }}", "{{ output.relative_path }}", "{{ job.key }}"]`;

const csv = (texts: string[]) => `sku,text\n${texts.map((t, i) => `S${i + 1},"${t.replaceAll('"', '""')}"`).join('\n')}\n`;

let project: Project;
beforeEach(async () => {
  project = await openProject();
  project.write('record.mjs', RECORD);
});
afterEach(() => project.close());

const run = (args: string[] = [], env: Record<string, string> = {}) => project.cli(['run', 'hooks.yaml', '--time-scale', TIME_SCALE, ...args], env);
const calls = () =>
  existsSync(join(project.dir, 'hook-calls.jsonl'))
    ? readFileSync(join(project.dir, 'hook-calls.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as string[])
    : [];
const outputCalls = () => calls().filter((c) => c[0] !== 'finish');
const hookRuns = () => project.query<{ job_key: string | null; hook: string; state: string; argv: string }>('SELECT job_key, hook, state, argv FROM hook_runs ORDER BY id');

describe('on_output gets each value as one argument, and no shell', () => {
  test('a CSV cell full of $(…), backticks, quotes, a newline and ../../x arrives verbatim as one argument and creates no file', async () => {
    project.write('rows.csv', csv([HOSTILE, 'plain']));
    project.write('hooks.yaml', manifest(RECORDING));
    const result = await run();
    expect(result.exitCode, result.stderr).toBe(0);

    const [hostile, plain] = outputCalls().sort((a, b) => (a[1] ?? '').localeCompare(b[1] ?? ''));
    expect(hostile).toEqual([HOSTILE, 'S1', 'shorts/S1.mp4', expect.stringMatching(/^shorts:[0-9a-f]{12}$/)]);
    expect(plain?.slice(0, 3)).toEqual(['plain', 'S2', 'shorts/S2.mp4']);
    // Nothing ran: no file named by the cell exists anywhere in the project (the hook's cwd).
    const everywhere = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? everywhere(join(dir, e.name)) : [e.name]));
    expect(everywhere(project.dir).filter((f) => f.startsWith('pwned'))).toEqual([]);
    // The record keeps the argument as run; the hook never saw the service's key (exit 9 otherwise).
    expect(hookRuns().filter((r) => r.hook === 'on_output').map((r) => r.state)).toEqual(['ok', 'ok']);
    expect(hookRuns().some((r) => JSON.parse(r.argv).includes(HOSTILE))).toBe(true);
    // on_finish ran once, after the report, with the run's totals.
    expect(calls().filter((c) => c[0] === 'finish')).toEqual([['finish', 'success', '2', '0', join(project.dir, 'out', 'report', 'index.html')]]);
  });
});

describe("a step's own on_output", () => {
  test("replaces the manifest's for that step's outputs when the run runs; the other steps keep the manifest's", async () => {
    project.write('rows.csv', csv(['one', 'two']));
    const own = `[${NODE}, record.mjs, step-own, "{{ job.step }}", "{{ output.relative_path }}"]`;
    project.write('hooks.yaml', `${manifest(RECORDING)}  - id: teaser
    kind: boreal
    hooks:
      on_output: ${own}
    with: { prompt: A shoe in a stream, resolution: 720p, duration: 5 }
`);
    const result = await run();
    expect(result.exitCode, result.stderr).toBe(0);
    expect(statusCounts(project)).toEqual({ downloaded: 3 });
    const ran = outputCalls();
    // Each output ran exactly one hook: the shorts the manifest's, the teaser its step's only.
    expect(ran.map((c) => c[2]).sort()).toEqual(['shorts/S1.mp4', 'shorts/S2.mp4', expect.stringMatching(/^teaser\/.+\.mp4$/)]);
    expect(ran.filter((c) => c[0] === 'step-own')).toEqual([['step-own', 'teaser', expect.stringMatching(/^teaser\//)]]);
    expect(ran.filter((c) => c[0] !== 'step-own').map((c) => c.slice(0, 3)).sort((a, b) => a[1]!.localeCompare(b[1]!))).toEqual([
      ['one', 'S1', 'shorts/S1.mp4'],
      ['two', 'S2', 'shorts/S2.mp4'],
    ]);
    expect(hookRuns().filter((r) => r.hook === 'on_output').map((r) => r.state)).toEqual(['ok', 'ok', 'ok']);
  });
});

describe('once per output, across kills', () => {
  test.each([
    // The first download: no hook can be running yet (one running when the process dies runs on, and is run again: see the next test).
    ['after-download:1', 'file in place, checksum not committed'],
    ['before-hook:2', 'hook recorded as running, command not started'],
  ])('killed at %s (%s): the next run runs each output hook exactly once', async (point) => {
    project.write('rows.csv', csv(['one', 'two', 'three']));
    project.write('hooks.yaml', manifest(RECORDING));
    const killed = await run([], { REELPIPE_TEST_KILL_AT: point });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    const before = outputCalls().length;
    expect(before).toBeLessThan(3);

    const again = await run();
    expect(again.exitCode, again.stderr).toBe(0);
    const perFile = outputCalls().map((c) => c[2]).sort();
    expect(perFile).toEqual(['shorts/S1.mp4', 'shorts/S2.mp4', 'shorts/S3.mp4']);
    expect(statusCounts(project)).toEqual({ downloaded: 3 });
    const states = hookRuns().filter((r) => r.hook === 'on_output').map((r) => r.state);
    expect(states.filter((s) => s === 'ok')).toHaveLength(3);
    if (point.startsWith('before-hook')) expect(states).toContain('interrupted');
    // A third run finds nothing owed.
    expect((await run()).exitCode).toBe(0);
    expect(outputCalls()).toHaveLength(3);
  });

  test('killed after a hook ended but before its result was recorded, the hook is run again (why hooks must be idempotent)', async () => {
    project.write('rows.csv', csv(['one', 'two']));
    project.write('hooks.yaml', manifest(RECORDING));
    expect((await run([], { REELPIPE_TEST_KILL_AT: 'after-hook:1' })).signal).toBe('SIGKILL');
    const first = outputCalls().map((c) => c[2]);
    expect(first).toHaveLength(1);
    expect((await run()).exitCode).toBe(0);
    const counts = new Map<string, number>();
    for (const c of outputCalls()) counts.set(c[2]!, (counts.get(c[2]!) ?? 0) + 1);
    expect(counts.get(first[0]!)).toBe(2);
    expect([...counts.values()].sort()).toEqual([1, 2]);
  });
});

describe('a failing hook', () => {
  test('marks its job hook failed (files stay, exit 1, shown in status); retry --hooks reruns only the failed hooks', async () => {
    project.write('rows.csv', csv(['one', 'two']));
    const failing = `[${NODE}, record.mjs, "{{ row.text }}", "{{ output.relative_path }}"]`;
    project.write('hooks.yaml', manifest(failing).replace('"{{ row.text }}", "{{ output.relative_path }}"]', 'fail, "{{ output.relative_path }}"]'));
    // Only S2's hook fails: the first argument is `fail` for every file, so make S1's succeed by name.
    writeFileSync(join(project.dir, 'record.mjs'), RECORD.replace("process.argv[2] === 'fail'", "process.argv[2] === 'fail' && process.argv[3] === 'shorts/S2.mp4'"));
    const result = await run();
    expect(result.exitCode, result.stderr).toBe(1);
    expect(result.stderr).toContain('1 job finished with its files on disk but an output hook failed');
    expect(result.stderr).toContain('reelpipe retry hooks.yaml --hooks');
    expect(statusCounts(project)).toEqual({ downloaded: 1, hook_failed: 1 });
    expect(existsSync(join(project.dir, 'out', 'shorts', 'S2.mp4'))).toBe(true);

    const status = await project.cli(['status', 'hooks.yaml']);
    expect(status.stdout).toMatch(/S2 .* hook failed .*on_output hook failed for file shorts\/S2\.mp4: exit 3 — upload refused: bucket missing/);
    expect(status.stdout).toContain('on_output file 0: failed, exit 3');
    expect(status.stdout).toContain('stderr: upload refused: bucket missing');
    const json = JSON.parse((await project.cli(['status', 'hooks.yaml', '--json'])).stdout) as { jobs: { label: string; state: string; hooks: { state: string; exitCode: number; stderrTail: string }[] }[] };
    expect(json.jobs.find((j) => j.label === 'S2')).toMatchObject({ state: 'hook failed', hooks: [{ state: 'failed', exitCode: 3, stderrTail: 'upload refused: bucket missing\n' }] });
    const report = readFileSync(join(project.dir, 'out', 'report', 'index.html'), 'utf8');
    expect(report).toContain('upload refused: bucket missing');

    // A plain rerun reruns nothing; retry --hooks after the fix reruns S2's hook only.
    expect((await run()).exitCode).toBe(1);
    expect(outputCalls()).toHaveLength(2);
    project.write('hooks.yaml', manifest(failing).replace('"{{ row.text }}", "{{ output.relative_path }}"]', 'fail, "{{ output.relative_path }}", fixed]'));
    const retried = await project.cli(['retry', 'hooks.yaml', '--hooks', '--time-scale', TIME_SCALE]);
    expect(retried.exitCode, retried.stderr).toBe(0);
    expect(retried.stderr).toContain('rerunning 1 failed hook of 1 job');
    // The first run's two hooks ran one at a time (hook concurrency 1), in whichever order their
    // downloads finished; the retry's one comes last.
    const files = outputCalls().map((c) => c[1]);
    expect([...files.slice(0, 2)].sort()).toEqual(['shorts/S1.mp4', 'shorts/S2.mp4']);
    expect(files.slice(2)).toEqual(['shorts/S2.mp4']);
    expect(statusCounts(project)).toEqual({ downloaded: 2 });
    expect(project.sandbox.stats().created.ai_short).toBe(2);
  });
});
