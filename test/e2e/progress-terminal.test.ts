import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CLI } from '../helpers/cli.js';
import { REDRAW, replayTerminal } from '../helpers/terminal-screen.js';
import { TIME_SCALE, openProject, type Project } from './harness.js';
import { scriptsCsv, shortsManifest } from './shorts-fixture.js';

/**
 * Progress as a person sees it: the real CLI under a pseudo-terminal (util-linux `script`), its
 * output replayed on a small terminal (test/helpers/terminal-screen.ts), and without a terminal
 * (a pipe, as under cron).
 */
const TEASER = `
  - id: teaser
    kind: boreal
    with: { prompt: A trail shoe in a mountain stream, resolution: 720p, duration: 10 }
`;
const COLUMNS = 100;
/** `run` prints nothing else that starts so: the header names the version and the run. */
const HEADER = /^reelpipe \d+\.\d+\.\d+ · run \d+ · started /;
const ISO_LINE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}(Z|[+-]\d\d:\d\d) {2}\S/;

let project: Project;
beforeAll(async () => {
  // Half the jobs fail at the service (seeded): failures are what prints above the block.
  project = await openProject({ faults: { rates: { jobFailure: 0.5 } } });
  project.write('scripts.csv', scriptsCsv(['TR-1', 'TR-2', 'TR-3', 'TR-4', 'TR-5', 'TR-6']));
  project.write('m.yaml', shortsManifest('trail', { top: 'concurrency: 3', steps: TEASER }));
  project.write('plain.yaml', shortsManifest('plain', { top: 'concurrency: 3', steps: TEASER }));
});
afterAll(() => project.close());

const env = () => ({ ...process.env, REELPIPE_BASE_URL: project.sandbox.url, REELPIPE_API_ID: 'e2e-api-id', REELPIPE_API_KEY: 'e2e-api-key-secret' });

describe('progress', () => {
  test('on a terminal: a block per step redrawn in place, failures above it, the summary below; nothing left behind', async () => {
    const command = `stty cols ${COLUMNS} rows 40; exec node ${CLI} run m.yaml --time-scale ${TIME_SCALE}`;
    const run = await execa('script', ['-q', '-e', '-c', command, '/dev/null'], {
      cwd: project.dir, env: { ...env(), TERM: 'xterm' }, stdin: 'ignore', reject: false, timeout: 60_000,
    });
    expect(run.exitCode, run.stdout).toBe(1);
    // Redrawn in place: the cursor goes up over the block and erases it, more than once.
    expect(run.stdout.match(REDRAW)?.length ?? 0).toBeGreaterThan(1);
    const screen = replayTerminal(run.stdout, COLUMNS);
    expect(screen.unknown).toEqual([]);
    const rows = screen.rows.filter((row) => row !== '');
    const shorts = rows.findIndex((row) => row.startsWith('shorts '));
    const summary = rows.findIndex((row) => row.startsWith('trail: 7 jobs'));
    // Once on the screen: every earlier block was erased by the next.
    expect(rows.filter((row) => /^total +[█░]/.test(row))).toHaveLength(1);
    expect(rows.slice(shorts, summary)).toEqual([
      expect.stringMatching(/^shorts +[█░]{10} {2}6\/6 {2}\d+ credits · (\d+ done, )?\d+ failed$/),
      expect.stringMatching(/^teaser +[█░]{10} {2}1\/1 {2}/),
      expect.stringMatching(/^total +██████████ {2}7\/7 {2}\d+s elapsed · \d+ credits · /),
    ]);
    // Above the block: the header, then a line per failure (and no line per ordinary change).
    const above = rows.slice(0, shorts);
    expect(above.some((row) => HEADER.test(row))).toBe(true);
    const failures = above.filter((row) => / FAILED +short-TR-\d/.test(row));
    expect(failures.length).toBeGreaterThan(0);
    expect(rows.slice(shorts, summary).join('\n')).toMatch(new RegExp(`${failures.length} failed`));
    expect(above.filter((row) => /\bsubmitted +short-/.test(row))).toEqual([]);
    expect(rows.slice(summary)).toContainEqual(expect.stringMatching(/^report: /));
  });

  test('without a terminal: not one escape code; every line of stderr is the header or starts with its ISO time, the final message too; a status line at the interval', async () => {
    const run = await project.cli(['run', 'plain.yaml', '--time-scale', TIME_SCALE], { REELPIPE_STATUS_EVERY: '0.01' });
    expect(run.exitCode, run.stderr).toBe(1);
    expect(run.stderr).not.toContain('\x1b');
    expect(run.stdout).not.toContain('\x1b');
    const lines = run.stderr.split('\n').filter((line) => line !== '');
    const strays = lines.filter((line) => !HEADER.test(line) && !ISO_LINE.test(line));
    expect(strays).toEqual([]);
    expect(lines.filter((line) => HEADER.test(line))).toHaveLength(1);
    expect(lines.at(-1)).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+(Z|[+-]\d\d:\d\d) {2}reelpipe: \d+ jobs? failed/);
    // REELPIPE_STATUS_EVERY asks for a status line every 10 ms: the run takes longer than that.
    expect(lines.filter((line) => line.includes('  progress: '))).toContainEqual(expect.stringMatching(/ {2}progress: \d+\/7 {2}.* elapsed · .* — shorts \d+\/6, teaser \d+\/1$/));
    // The header names everything a log reader needs.
    expect(lines.find((line) => HEADER.test(line))).toMatch(
      new RegExp(`· manifest ${project.dir}/plain\\.yaml · state ${project.dir}/state/reelpipe\\.db · log ${project.dir}/state/logs/\\d+\\.ndjson · plan: 7 jobs in 2 steps, `),
    );
    expect(run.stdout).toMatch(/^plain: 7 jobs — /);
  });
});
