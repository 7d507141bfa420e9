import { readFileSync } from 'node:fs';
import { execa } from 'execa';
import { afterEach, describe, expect, test } from 'vitest';
import { CLI } from '../helpers/cli.js';
import { created, openProject, STORES, until, type Project } from './harness.js';

/**
 * A run paused past its lease (SIGSTOP: a frozen VM, a laptop lid, a partition) while the next run
 * takes its manifest over, then resumed: it must send nothing more — its lease ran out by its own
 * monotonic clock, and its writes are fenced by the lock it lost — and exit 75, while the run that
 * took over finishes every job, none made twice. A slow sandbox (speed 100) keeps the first run
 * mid-batch when it is paused.
 */
const SPEED = 100;
const shorts = (jobs: number) => `
version: 1
name: paused
outputs: out
concurrency: 4
steps:
  - id: shorts
    kind: ai_short
    matrix: { n: [${Array.from({ length: jobs }, (_, i) => i + 1).join(', ')}] }
    name: "short-{{ matrix.n }}"
    with: { script: "Keep going, take {{ matrix.n }}.", style: 3D, aspect_ratio: 9x16 }
`;

let project: Project | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});



/** The environment a project's CLI runs with (p.cli's), and the run's arguments: the slow sandbox's time scale, a lease of 2 s. */
const runOf = (p: Project) => ({
  env: p.env,
  args: ['run', 'paused.yaml', '--time-scale', String(1 / SPEED), '--lease', '2s'],
});

/** Whether process `pid` is stopped (SIGSTOP): its state in /proc is `T`. */
const stopped = (pid: number | undefined): boolean => {
  try {
    return pid !== undefined && readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('T') === true;
  } catch {
    return false;
  }
};

describe.each(STORES)('on %s', { timeout: 90_000 }, (store) => {
  test('a run paused past its lease and resumed after another took its manifest over sends nothing more and exits 75; nothing is made twice', async () => {
    const p = (project = await openProject({ store, speed: SPEED }));
    p.write('paused.yaml', shorts(12));
    const { env, args } = runOf(p);
    // Frozen mid-batch, after its second poll answered (so with jobs made), between two of its
    // writes: a run frozen inside one holds SQLite's write lock, which no lease breaks (below).
    const first = execa('node', [CLI, ...args], { cwd: p.dir, env: { ...env, REELPIPE_HOST: 'cron-1', REELPIPE_TEST_KILL_AT: 'after-poll:2', REELPIPE_TEST_KILL_SIGNAL: 'SIGSTOP' }, reject: false });
    await until(() => stopped(first.pid), 'the first run to pause mid-batch');
    const pausedAt = created(p);
    // The second run waits for the paused run's lease to run out, breaks its lock and finishes the batch.
    const second = await p.cli([...args, '--wait-for-lock', '30s'], { REELPIPE_HOST: 'cron-2' });
    expect([0, 5], second.stderr).toContain(second.exitCode);
    expect(await p.rows("SELECT data FROM events WHERE type = 'lock:broken'")).toHaveLength(1);
    const afterSecond = created(p);
    first.kill('SIGCONT');
    const resumed = await first;
    expect(resumed.exitCode, resumed.stderr).toBe(75);
    // Nothing more was created once the first run woke: its lease had run out, its lock was gone.
    expect(created(p)).toBe(afterSecond);
    expect(p.sandbox.stats().duplicates.total).toBe(0);
    expect(created(p)).toBeGreaterThanOrEqual(pausedAt);
    const statuses = await p.rows<{ status: string; n: number }>('SELECT status, count(*) AS n FROM jobs GROUP BY status');
    const byStatus = Object.fromEntries(statuses.map((row) => [row.status, Number(row.n)]));
    // Every job downloaded, but at most the paused run's in-flight ones (in doubt where the service cannot be searched).
    expect((byStatus.downloaded ?? 0) + (byStatus.in_doubt ?? 0)).toBe(12);
    expect(byStatus.in_doubt ?? 0).toBeLessThanOrEqual(4);
    // Each job names the host whose run sent it: the paused one's first jobs, the rest the other's.
    const status = JSON.parse((await p.cli(['status', 'paused.yaml', '--json'])).stdout) as { jobs: { host: string | null }[] };
    const hosts = status.jobs.map((job) => job.host);
    expect(hosts.every((host) => host === 'cron-1' || host === 'cron-2')).toBe(true);
    expect(hosts).toContain('cron-1');
    expect(hosts).toContain('cron-2');
  });

  test('a run paused between an intent and its POST, and resumed after another took its manifest over, never writes that POST: its lease ran out', async () => {
    const p = (project = await openProject({ store, speed: SPEED }));
    p.write('paused.yaml', shorts(6));
    const { env, args } = runOf(p);
    // Frozen right after its third intent committed, before that POST is written.
    const first = execa('node', [CLI, ...args], { cwd: p.dir, env: { ...env, REELPIPE_TEST_KILL_AT: 'before-post:3', REELPIPE_TEST_KILL_SIGNAL: 'SIGSTOP' }, reject: false });
    await until(() => stopped(first.pid), 'the first run to pause before a POST');
    const [paused] = await p.rows<{ request: string }>('SELECT request FROM attempts ORDER BY id LIMIT 1 OFFSET 2');
    const script = (JSON.parse(paused!.request) as { script: string }).script;
    // The run that takes over finds that job sent-or-not: in doubt (an AI Short cannot be searched for), never resent.
    const second = await p.cli([...args, '--wait-for-lock', '30s']);
    expect(second.exitCode, second.stderr).toBe(5);
    first.kill('SIGCONT');
    const resumed = await first;
    expect(resumed.exitCode, resumed.stderr).toBe(75);
    // Woken, the first run checked its lease right before writing the POST, found it run out, and sent nothing.
    expect(p.sandbox.jobs().filter((job) => job.body.script === script)).toEqual([]);
    expect(p.sandbox.stats().duplicates.total).toBe(0);
    // A creation answer it received after that (a POST written before the pause) but could no
    // longer record was kept as observed: the next run adopts each such job.
    const third = await p.cli(args);
    expect([0, 5], third.stderr).toContain(third.exitCode);
    const statuses = new Map((await p.rows<{ key: string; status: string }>('SELECT key, status FROM jobs')).map((row) => [row.key, row.status]));
    expect([...statuses.values()].every((status) => status === 'downloaded' || status === 'in_doubt')).toBe(true);
    for (const { job_key } of await p.rows<{ job_key: string }>("SELECT job_key FROM events WHERE type = 'job:observed'")) expect(statuses.get(job_key)).toBe('downloaded');
    expect(p.sandbox.stats().duplicates.total).toBe(0);
  });
});

/**
 * A process frozen inside a write transaction holds SQLite's write lock, and no lease can break
 * that: only the process going on or ending lets it go. A run meeting it waits the busy timeout,
 * then exits 75 ("try again later") naming the file, having sent nothing; once the holder is gone,
 * the same command finishes the batch, nothing made twice.
 */
describe('on sqlite, a state database another process holds mid-write', { timeout: 90_000 }, () => {
  test('the run exits 75 naming the file and sends nothing; once the holder is gone the same command finishes the batch', async () => {
    const p = (project = await openProject({ store: 'sqlite', speed: SPEED }));
    const { env, args } = runOf(p);
    p.write('paused.yaml', shorts(2));
    expect((await p.cli(args)).exitCode).toBe(0);
    p.write('paused.yaml', shorts(5));
    const { holder } = await holdWriteLock(p.state);
    const blocked = await p.cli(args, env);
    expect(blocked.exitCode, blocked.stderr).toBe(75);
    expect(blocked.stderr).toContain(`the state database ${p.state} is held by another process`);
    expect(blocked.stderr).not.toContain('internal error');
    expect(created(p)).toBe(2);
    holder.kill('SIGKILL');
    await holder;
    const after = await p.cli(args);
    expect(after.exitCode, after.stderr).toBe(0);
    expect(created(p)).toBe(5);
    expect(p.sandbox.stats().duplicates.total).toBe(0);
  });

  test('taken mid-run, the run stops (nothing more can be recorded) and exits 75 saying what is left; the next run finishes, nothing made twice', async () => {
    const p = (project = await openProject({ store: 'sqlite', speed: SPEED }));
    const { env, args } = runOf(p);
    p.write('paused.yaml', shorts(24));
    const run = execa('node', [CLI, ...args], { cwd: p.dir, env, reject: false });
    await until(() => created(p) >= 2, 'the run to create jobs');
    const { holder } = await holdWriteLock(p.state);
    const stopped = await run;
    expect(stopped.exitCode, stopped.stderr).toBe(75);
    expect(stopped.stderr).toMatch(/is held by another process: .*; nothing more could be recorded, so the run stopped; \d+ jobs left \(/);
    holder.kill('SIGKILL');
    await holder;
    const after = await p.cli(args);
    expect([0, 5], after.stderr).toContain(after.exitCode);
    const statuses = await p.rows<{ status: string; n: number }>('SELECT status, count(*) AS n FROM jobs GROUP BY status');
    const byStatus = Object.fromEntries(statuses.map((row) => [row.status, Number(row.n)]));
    // Every job downloaded, but at most those whose POST was on the wire when the run stopped (in doubt: an AI Short cannot be searched for).
    expect((byStatus.downloaded ?? 0) + (byStatus.in_doubt ?? 0)).toBe(24);
    expect(byStatus.in_doubt ?? 0).toBeLessThanOrEqual(4);
    expect(p.sandbox.stats().duplicates.total).toBe(0);
  });
});

/** A process that takes SQLite's write lock on `path` (BEGIN IMMEDIATE) and is then frozen before COMMIT (SIGSTOP). */
async function holdWriteLock(path: string): Promise<{ holder: ReturnType<typeof execa> }> {
  const hold = `const db = new (require('better-sqlite3'))(${JSON.stringify(path)}); db.exec('BEGIN IMMEDIATE'); console.log('held'); setInterval(() => {}, 1000);`;
  const holder = execa('node', ['-e', hold], { reject: false });
  await new Promise<void>((resolve) => holder.stdout?.once('data', () => resolve()));
  holder.kill('SIGSTOP');
  // Wrapped: the child is a promise of its end, which returning it from here would wait for.
  return { holder };
}
