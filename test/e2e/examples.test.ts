import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { REPO_ROOT, runCli } from '../helpers/cli.js';

/**
 * Every manifest in examples/ does what it shows, end to end, on the embedded sandbox: the command
 * a new user runs (`reelpipe run examples/X.yaml --sandbox`) exits 0, every job of the plan ends
 * done, and every output it lists is on disk. The folder is listed, so a new example is covered
 * without touching this file. Each run works in its own copy of examples/, so nothing lands in the
 * repository and runs cannot see each other's state or outputs.
 */
const EXAMPLES = join(REPO_ROOT, 'examples');
const manifests = readdirSync(EXAMPLES).filter((f) => f.endsWith('.yaml')).sort();
const FINISHED = ['done', 'downloaded'];

const root = mkdtempSync(join(tmpdir(), 'reelpipe-examples-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/**
 * Extra flags the example's header comment tells the user to run it with on the sandbox
 * (`reelpipe run examples/X.yaml --sandbox --sandbox-speed N`); none for most examples. Only a
 * header's own advice may speed a run up, so the test runs what the user is told to run.
 */
function headerFlags(file: string): string[] {
  const header = readFileSync(join(EXAMPLES, file), 'utf8').split('\n').filter((line) => line.startsWith('#'));
  const command = header.map((line) => new RegExp(`reelpipe run examples/${file} --sandbox (--sandbox-speed \\d+)`).exec(line)).find(Boolean);
  return command ? command[1]!.split(' ') : [];
}

interface StatusReport {
  totals: { jobs: number };
  jobs: { key: string; dbStatus: string; outputs: string[]; failedReason: string | null }[];
}

describe.concurrent('examples/ on the embedded sandbox', () => {
  test('the folder has examples to run', () => {
    expect(manifests.length).toBeGreaterThan(10);
  });

  test.each(manifests)('%s runs to exit 0 with every job done and every output on disk', async (file) => {
    const dir = mkdtempSync(join(root, `${file.replace(/\.yaml$/, '')}-`));
    cpSync(EXAMPLES, join(dir, 'examples'), { recursive: true });
    const state = join(dir, 'state', 'state.db');
    const manifest = join('examples', file);

    const run = await runCli(['run', manifest, '--sandbox', '--state', state, ...headerFlags(file)], { cwd: dir, timeout: 50_000 });
    expect(run.exitCode, `${run.stdout}\n${run.stderr}`).toBe(0);

    const status = await runCli(['status', manifest, '--json', '--sandbox', '--state', state], { cwd: dir });
    expect(status.exitCode, status.stderr).toBe(0);
    const report = JSON.parse(status.stdout) as StatusReport;
    expect(report.jobs).toHaveLength(report.totals.jobs);
    expect(report.jobs.length).toBeGreaterThan(0);
    const unfinished = report.jobs.filter((job) => !FINISHED.includes(job.dbStatus));
    expect(unfinished, 'jobs not done').toEqual([]);
    for (const output of report.jobs.flatMap((job) => job.outputs)) {
      expect(output.startsWith(dir), `${output} lands outside the run's copy`).toBe(true);
      expect(statSync(output).size, output).toBeGreaterThan(0);
    }
  });
});
