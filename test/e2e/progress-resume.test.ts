import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CLI } from '../helpers/cli.js';
import { replayTerminal } from '../helpers/terminal-screen.js';
import { TIME_SCALE, openProject, type Project } from './harness.js';
import { scriptsCsv } from './shorts-fixture.js';

/**
 * A run after a killed one says what it starts from, right after its header: the run it resumes
 * and its jobs as it found them — in cron's plain lines and on a terminal, where, 80 columns
 * wide, the block keeps its failed counts in sight.
 */
const HEADER = /^reelpipe \d+\.\d+\.\d+ · run \d+ · started /;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}(Z|[+-]\d\d:\d\d) {2}/;
/** A step id as long as the block shows one (24 columns): the lines are at their widest. */
const STEP = 'product-shorts-for-spring';
const manifest = (name: string) => `
version: 1
name: ${name}
outputs: out-${name}
concurrency: 3
steps:
  - id: ${STEP}
    kind: ai_short
    for_each: { csv: scripts.csv }
    name: "short-{{ row.sku }}"
    with: { script: "{{ row.script }}", style: Cinematic, aspect_ratio: 9x16 }
`;

let project: Project;
beforeAll(async () => {
  // Half the jobs fail at the service (seeded), so of eight some fail: the block has failed counts to keep in sight.
  project = await openProject({ faults: { rates: { jobFailure: 0.5 } } });
  project.write('scripts.csv', scriptsCsv(['TR-1', 'TR-2', 'TR-3', 'TR-4', 'TR-5', 'TR-6', 'TR-7', 'TR-8']));
});
afterAll(() => project.close());

/**
 * Runs `name.yaml` until its first read is answered, then SIGKILLs it (nothing of that read is
 * recorded); returns the killed run's id and what the next run should say it found, from `status`.
 */
async function killedRun(name: string): Promise<{ runId: number; found: string }> {
  project.write(`${name}.yaml`, manifest(name));
  const killed = await project.cli(['run', `${name}.yaml`, '--time-scale', TIME_SCALE], { REELPIPE_TEST_KILL_AT: 'after-poll:1' });
  expect(killed.signal, killed.stderr).toBe('SIGKILL');
  const runs = JSON.parse((await project.cli(['runs', `${name}.yaml`, '--json'])).stdout) as { runs: { id: number; state: string }[] };
  expect(runs.runs).toEqual([expect.objectContaining({ state: 'died' })]);
  const status = JSON.parse((await project.cli(['status', `${name}.yaml`, '--json'])).stdout) as { totals: { counts: Record<string, number> } };
  const n = (...words: string[]) => words.reduce((sum, word) => sum + (status.totals.counts[word] ?? 0), 0);
  // Sent before the kill, its reads not recorded: the next run finds jobs at the service.
  expect(n('submitted', 'running')).toBeGreaterThan(0);
  const found = `${n('done')} done, ${n('submitted', 'running')} at the service, ${n('in doubt', 'submitting')} in doubt, ${n('not submitted')} to send`;
  return { runId: runs.runs[0]!.id, found };
}

describe('a run after a killed one', () => {
  test('without a terminal: the line after the header says it resumes that run, with its jobs as found', async () => {
    const { runId, found } = await killedRun('cron');
    const run = await project.cli(['run', 'cron.yaml', '--time-scale', TIME_SCALE]);
    const lines = run.stderr.split('\n');
    const header = lines.findIndex((line) => HEADER.test(line));
    expect(header, run.stderr).toBeGreaterThanOrEqual(0);
    expect(lines[header + 1]!.replace(ISO, '<t>  ')).toBe(`<t>  resumes run ${runId}, which died (no end recorded): ${found}`);
    // Said once: a run after this one, which ended with no job left open, says nothing of the kind.
    expect(run.stderr.match(/resumes run/g)).toHaveLength(1);
    const next = await project.cli(['run', 'cron.yaml', '--time-scale', TIME_SCALE]);
    expect(next.stderr).not.toContain('resumes run');
  });

  test('on a terminal 80 columns wide: said above the block; the block\'s lines fit and keep their failed counts', async () => {
    const { runId, found } = await killedRun('tty');
    const command = `stty cols 80 rows 40; exec node ${CLI} run tty.yaml --time-scale ${TIME_SCALE}`;
    const run = await execa('script', ['-q', '-e', '-c', command, '/dev/null'], {
      cwd: project.dir, env: { ...process.env, REELPIPE_BASE_URL: project.sandbox.url, REELPIPE_API_ID: 'e2e-api-id', REELPIPE_API_KEY: 'e2e-api-key-secret', TERM: 'xterm' },
      stdin: 'ignore', reject: false, timeout: 60_000,
    });
    expect(run.exitCode, run.stdout).toBe(1);
    // Read as lines (a wide screen: the lines above the block wrap on the real one, as they may).
    const lines = replayTerminal(run.stdout).rows.filter((row) => row !== '');
    const header = lines.findIndex((row) => HEADER.test(row));
    expect(lines[header + 1]).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d {2}resumes run ${runId}, which died \\(no end recorded\\): ${found}$`));
    // The block as the 80-column screen shows it: each line one row, its failed count whole.
    const screen = replayTerminal(run.stdout, 80).rows;
    const block = screen.filter((row) => /^(product-shorts-for-spri…|total) +[█░]{10} /.test(row));
    expect(block).toEqual([
      expect.stringMatching(/^product-shorts-for-spri… +[█░]{10} {2}8\/8 {2}.*\b\d+ failed$/),
      expect.stringMatching(/^total +[█░]{10} {2}8\/8 {2}.*\b\d+ failed$/),
    ]);
    expect(block.every((row) => row.length <= 79)).toBe(true);
  });
});
