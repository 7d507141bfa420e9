import { execa } from 'execa';
import { afterEach, describe, expect, test } from 'vitest';
import { CLI } from '../helpers/cli.js';
import { created, openProject, STORES, TIME_SCALE, type Project } from './harness.js';

/**
 * One account, two teams: manifests of their own, run at once as separate processes on one
 * state, against one sandbox. The account's slot limit and cap hold across both (an AI Short
 * costs 5 credits here, its low and high estimates alike).
 */
const shorts = (name: string, jobs: number) => `
version: 1
name: ${name}
outputs: out-${name}
steps:
  - id: shorts
    kind: ai_short
    matrix: { n: [${Array.from({ length: jobs }, (_, i) => i + 1).join(', ')}] }
    name: "${name}-{{ matrix.n }}"
    with: { script: "Run further, team ${name}, take {{ matrix.n }}.", style: 3D, aspect_ratio: 9x16 }
`;

let project: Project | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});


interface ShownAccount {
  limits: { concurrency: number | null; maxCredits: number | null };
  manifests: { manifest: string; spent: number; held: number; slots: number }[];
  total: { spent: number; held: number; slots: number };
}

describe.each(STORES)('on %s', { timeout: 90_000 }, (store) => {
  test('two manifests of 80 credits each under an account cap of 100, started at once: at most 100 spent together, a run refused exits 3', async () => {
    const p = (project = await openProject({ store }));
    p.write('a.yaml', shorts('team-a', 16));
    p.write('b.yaml', shorts('team-b', 16));
    const set = await p.cli(['account', 'set', '--max-credits', '100']);
    expect(set.exitCode, set.stderr).toBe(0);
    const runs = await Promise.all(['a.yaml', 'b.yaml'].map((file) => p.cli(['run', file, '--time-scale', TIME_SCALE])));
    const codes = runs.map((run) => run.exitCode);
    expect(codes.every((code) => code === 0 || code === 3), runs.map((r) => r.stderr).join('\n---\n')).toBe(true);
    expect(codes).toContain(3);
    for (const run of runs.filter((r) => r.exitCode === 3)) expect(run.stderr).toMatch(/the account's cap of 100 would be passed/);
    expect(created(p)).toBeLessThanOrEqual(20);
    expect(p.sandbox.stats().credits.charged).toBeLessThanOrEqual(100);
    const show = await p.cli(['account', 'show', '--json']);
    expect(show.exitCode, show.stderr).toBe(0);
    const account = JSON.parse(show.stdout) as ShownAccount;
    expect(account.limits.maxCredits).toBe(100);
    expect(account.total.spent).toBe(created(p) * 5);
    expect(account.total.spent).toBeLessThanOrEqual(100);
    expect(account.total.held).toBe(0);
    expect(account.manifests.map((m) => m.manifest).sort()).toEqual(['team-a', 'team-b']);
  });

  test('under an account limit of 3 slots, two manifests run at once never have more than 3 jobs alive at the service, and both finish', async () => {
    const p = (project = await openProject({ store }));
    p.write('a.yaml', shorts('team-a', 12));
    p.write('b.yaml', shorts('team-b', 12));
    expect((await p.cli(['account', 'set', '--concurrency', '3'])).exitCode).toBe(0);
    const runs = await Promise.all(['a.yaml', 'b.yaml'].map((file) => p.cli(['run', file, '--time-scale', TIME_SCALE, '--concurrency', '8'])));
    for (const run of runs) expect(run.exitCode, run.stderr).toBe(0);
    expect(runs.map((run) => run.stderr).join('\n')).toMatch(/the account's 3 slots are all in use: jobs wait for a slot/);
    // Each run says at its start that its own concurrency is above the account's.
    for (const run of runs) expect(run.stderr).toContain("concurrency 8 is above the account's 3 slots (reelpipe account set --concurrency)");
    expect(created(p)).toBe(24);
    expect(p.sandbox.stats().alive.peak).toBeLessThanOrEqual(3);
    expect(p.sandbox.stats().alive.peak).toBeGreaterThanOrEqual(2);
    const account = JSON.parse((await p.cli(['account', 'show', '--json'])).stdout) as ShownAccount;
    expect(account.total).toMatchObject({ spent: 120, held: 0, slots: 0 });
  });

  test('a run killed with SIGKILL mid-batch under an account limit of 3 slots: its jobs keep their slots while they render, the run taking over tracks them, never more than 3 alive, none made twice', async () => {
    // A job killed mid-POST is in doubt and keeps its slot for its slot life, scaled by the run's
    // time scale (an hour ÷ 400 = 9 s here): the run taking over waits that long for it.
    const speed = 400;
    const p = (project = await openProject({ store, speed }));
    p.write('a.yaml', shorts('team-a', 10));
    expect((await p.cli(['account', 'set', '--concurrency', '3'])).exitCode).toBe(0);
    const args = ['run', 'a.yaml', '--time-scale', String(1 / speed), '--lease', '2s'];
    const first = execa('node', [CLI, ...args], { cwd: p.dir, env: p.env, reject: false });
    for (const end = Date.now() + 20_000; created(p) < 3; ) {
      if (Date.now() > end) throw new Error('the first run created nothing');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    first.kill('SIGKILL');
    await first;
    const second = await p.cli([...args, '--wait-for-lock', '30s']);
    expect([0, 5], second.stderr).toContain(second.exitCode);
    expect(p.sandbox.stats().alive.peak).toBeLessThanOrEqual(3);
    const freed = await p.rows("SELECT job_key FROM events WHERE type = 'account:slot-freed'");
    expect(p.sandbox.stats().duplicates.total).toBe(0);
    const statuses = (await p.rows<{ status: string }>('SELECT status FROM jobs')).map((row) => row.status);
    expect(statuses.every((status) => status === 'downloaded' || status === 'in_doubt')).toBe(true);
    // A job killed mid-POST is in doubt (an AI Short cannot be searched for): it keeps its hold
    // until resolved, and its slot until its slot life passed (then given back, with an event).
    const inDoubt = statuses.filter((status) => status === 'in_doubt').length;
    const account = JSON.parse((await p.cli(['account', 'show', '--json'])).stdout) as ShownAccount;
    expect(account.total).toMatchObject({ slots: inDoubt - freed.length, held: inDoubt * 5 });
  });
});
