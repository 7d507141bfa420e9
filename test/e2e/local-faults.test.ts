import { execa } from 'execa';
import { afterEach, describe, expect, test } from 'vitest';
import { CLI } from '../helpers/cli.js';
import { openProject, type Project } from './harness.js';

let opened: Project | undefined;
afterEach(async () => {
  await opened?.close();
  opened = undefined;
});

/**
 * A project whose m.yaml makes SHORTS on a sandbox at speed 200, and `command` run in its folder
 * with the CLI's path ($CLI) and the service in its environment; `read` gives a file it wrote.
 */
async function runInProject([file, ...args]: string[]) {
  const project = (opened = await openProject({ speed: 200 }));
  project.write('m.yaml', SHORTS);
  const env = { ...process.env, CLI, REELPIPE_BASE_URL: project.sandbox.url, REELPIPE_API_ID: 'e2e-api-id', REELPIPE_API_KEY: 'e2e-api-key-secret' };
  const result = await execa(file!, args, { cwd: project.dir, env, reject: false, timeout: 60_000 });
  const read = (name: string) => execa('cat', [name], { cwd: project.dir, reject: false }).then((r) => r.stdout);
  return { project, result, read };
}

const SHORTS = `
version: 1
name: disk
outputs: out
concurrency: 2
steps:
  - id: shorts
    kind: ai_short
    for_each: { rows: [${Array.from({ length: 30 }, (_, i) => `{ t: "Take number ${i} of the spring line." }`).join(', ')}] }
    with: { script: "{{ row.t }}", style: 3D, aspect_ratio: 9x16 }
`;

/**
 * The state database on a real, tiny file system that fills up mid-run: an 8 MB tmpfs mounted in a
 * private mount namespace (`unshare -rm`, no privileges needed), so the disk is truly full —
 * nothing is simulated. The script prints each step's exit code and output for the test to read.
 */
const SCRIPT = `
set -u
mkdir -p small && mount -t tmpfs -o size=8m tmpfs small || { echo "MOUNT FAILED"; exit 99; }
node "$CLI" run m.yaml --state small/state.db --time-scale 0.002 > first.out 2> first.err &
pid=$!
# Fill the disk once the run is busy submitting and tracking.
until grep -q submitted first.err 2>/dev/null; do sleep 0.05; done
head -c 16000000 /dev/zero > small/fill 2>/dev/null
wait $pid; echo "first=$?"
rm -f small/fill
node "$CLI" run m.yaml --state small/state.db --time-scale 0.002 > second.out 2> second.err; echo "second=$?"
`;

describe('a local fault is not "jobs failed"', () => {
  test('a disk that fills under the state database stops the run with exit 74 and a summary; freed, the next run finishes without paying twice', async () => {
    const { project, result, read } = await runInProject(['unshare', '-rm', 'sh', '-c', SCRIPT]);
    const [firstOut, firstErr, secondErr] = await Promise.all([read('first.out'), read('first.err'), read('second.err')]);

    expect(result.stdout, `${result.stderr}\n--- first run stderr ---\n${firstErr}`).toMatch(/first=74/);
    expect(firstErr).toMatch(/a local fault|could not be written/);
    expect(firstErr).toMatch(/SQLITE_FULL|disk is full|database or disk is full/i);
    expect(firstErr).not.toMatch(/internal error|at .*\.js:\d+/);
    expect(firstOut).toMatch(/^disk: 30 jobs — /);
    // A POST answered while the disk was full could not be recorded: its job is in doubt (exit 5),
    // and the first run said which remote id it was created as, so nothing is lost. Otherwise 0.
    const second = /second=(\d+)/.exec(result.stdout)?.[1];
    if (second === '5') expect(firstErr).toMatch(/shorts:\w+ WAS CREATED as remote id [\w-]+, but the state database could not record it/);
    else expect(second, secondErr).toBe('0');
    expect(project.sandbox.stats().duplicates.total).toBe(0);
    expect(project.sandbox.stats().created.ai_short).toBe(30);
  }, 90_000);
});

describe('a reader that goes away is not a fault of the run', () => {
  test('`run … 2>&1 | head -c 60` closes both streams early: the run still records every job to its end and exits 0', async () => {
    const script = 'node "$CLI" run m.yaml --time-scale 0.005 2>&1 | head -c 60 > /dev/null; echo "run=${PIPESTATUS[0]}"';
    const { project, result } = await runInProject(['bash', '-c', script]);
    expect(result.stdout, result.stderr).toMatch(/run=0/);
    const open = project.query<{ n: number }>("SELECT count(*) AS n FROM jobs WHERE status <> 'downloaded'");
    expect(open[0]!.n).toBe(0);
    expect(project.sandbox.stats().created.ai_short).toBe(30);
  }, 90_000);
});

/**
 * The run's log on a file system that is already full (a 64 kB tmpfs, filled, behind
 * state/logs), while the state database itself is on a healthy disk.
 */
const FULL_LOGS = `
set -u
mkdir -p small state && mount -t tmpfs -o size=64k tmpfs small || { echo "MOUNT FAILED"; exit 99; }
head -c 1000000 /dev/zero > small/fill 2>/dev/null
ln -s ../small state/logs
node "$CLI" run m.yaml --time-scale 0.005 > run.out 2> run.err; echo "run=$?"
`;

describe('a log that cannot be written is not a fault of the run', () => {
  test('with its log file on a full disk, the run still records and downloads every job, says once that the log is lost, and exits 0', async () => {
    const { project, result, read } = await runInProject(['unshare', '-rm', 'sh', '-c', FULL_LOGS]);
    const stderr = await read('run.err');
    expect(result.stdout, stderr).toMatch(/run=0/);
    expect(stderr).not.toMatch(/internal error/);
    expect(stderr.match(/the run's log \S+ could not be written \(ENOSPC/g)).toHaveLength(1);
    const open = project.query<{ n: number }>("SELECT count(*) AS n FROM jobs WHERE status <> 'downloaded'");
    expect(open[0]!.n).toBe(0);
  }, 90_000);
});
