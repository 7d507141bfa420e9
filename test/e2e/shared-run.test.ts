import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { startTcpProxy } from '../helpers/tcp-proxy.js';
import { countStatuses, created, openProject, until, type Project } from './harness.js';
import { checkouts, member, sharedManifest, SPEED } from './members-harness.js';

/**
 * Several hosts, one run (members-harness.ts): on PostgreSQL a second `reelpipe run` of a manifest
 * a live run holds joins it, the members claim disjoint jobs, a member killed mid-run has its jobs
 * taken over once its lease lapses, and the last member to leave ends the run.
 */
let project: Project | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

describe('one run shared by several hosts (PostgreSQL)', { timeout: 120_000 }, () => {
  test('three members from three checkouts, one killed four seconds in: every job done once, each member named on its jobs, the outputs in the shared folder, at most 12 alive at once', async () => {
    const p = (project = await openProject({ store: 'postgres', speed: SPEED }));
    const { dirs, shared } = checkouts(p, 240);
    const set = await p.cli(['account', 'set', '--concurrency', '12']);
    expect(set.exitCode, set.stderr).toBe(0);
    const [a, b, c] = [member(p, dirs[0]!, 'host-a'), member(p, dirs[1]!, 'host-b'), member(p, dirs[2]!, 'host-c')];
    // Four seconds in — and once host-b has sent jobs of its own (on a loaded machine a member may take a while to start).
    await new Promise((resolve) => setTimeout(resolve, 4000));
    const sentByB = async () => Number((await p.rows<{ n: number }>("SELECT count(*) AS n FROM attempts a JOIN runs r ON r.id = a.run_id WHERE r.host = 'host-b'"))[0]?.n ?? 0);
    for (let tries = 0; (await sentByB()) === 0 && tries < 200; tries++) await new Promise((resolve) => setTimeout(resolve, 50));
    b.kill('SIGKILL');
    const [ra, rb, rc] = await Promise.all([a, b, c]);
    expect(rb.signal).toBe('SIGKILL');
    // The run's exit code, from the member that ended it: 0, or 5 for the killed member's answers lost mid-POST.
    const codes = [ra.exitCode, rc.exitCode];
    expect(codes.every((code) => code === 0 || code === 5), `${String(ra.all)}\n---\n${String(rc.all)}`).toBe(true);
    // Exactly one of them ended the run (the other said it left).
    const left = [ra, rc].filter((r) => String(r.stdout).includes('another member ends the run'));
    expect(left, `${ra.stdout}\n---\n${rc.stdout}`).toHaveLength(1);
    expect((await p.rows("SELECT id FROM events WHERE type = 'run:left' AND data LIKE '%\"last\":true%'")).length).toBe(1);
    // Zero duplicate creations; every job downloaded, but at most the killed member's in-flight ones in doubt.
    expect(p.sandbox.stats().duplicates.total).toBe(0);
    const byStatus = await countStatuses(p);
    expect((byStatus.downloaded ?? 0) + (byStatus.in_doubt ?? 0), JSON.stringify(byStatus)).toBe(240);
    expect(byStatus.in_doubt ?? 0).toBeLessThanOrEqual(12);
    expect(created(p)).toBeLessThanOrEqual(240);
    // The account's limit held across the members: never more than 12 jobs alive at the service.
    expect(p.sandbox.stats().alive.peak).toBeLessThanOrEqual(12);
    // Each member is named on the jobs it did; the dead one's lock was broken by a member taking its jobs over.
    const status = JSON.parse((await p.cli(['status', 'shared.yaml', '--json'], {}, dirs[0])).stdout) as { jobs: { host: string | null }[] };
    const hosts = new Set(status.jobs.map((job) => job.host));
    for (const host of ['host-a', 'host-b', 'host-c']) expect(hosts).toContain(host);
    expect((await p.rows("SELECT data FROM events WHERE type = 'lock:broken'")).length).toBeGreaterThanOrEqual(1);
    // `reelpipe hosts` lists the run's three members: two that finished their share, the killed one gone.
    const listed = JSON.parse((await p.cli(['hosts', 'shared.yaml', '--json'], {}, dirs[1])).stdout) as { members: { host: string; state: string; held: number }[] };
    expect(Object.fromEntries(listed.members.map((m) => [m.host, m.state]))).toEqual({ 'host-a': 'left', 'host-b': 'gone', 'host-c': 'left' });
    // One report, written by the member that ended the run, names the hosts.
    const report = readFileSync(join(shared, 'report', 'index.html'), 'utf8');
    const named = /<p id="hosts">hosts of the run: (.*?)<\/p>/.exec(report)?.[1] ?? '';
    for (const [host, state] of [["host-a", "left"], ["host-b", "gone"], ["host-c", "left"]]) expect(named, named).toMatch(new RegExp(`${host} \\(\\d+ jobs?, ${state}\\)`));
    // The report heads with the run as one — its id (the first member's), every member's credits — not the ending member's share.
    const [{ run }] = await p.rows<{ run: number }>("SELECT coalesce(joined, id) AS run FROM runs WHERE host = 'host-b'") as [{ run: number }];
    expect(report).toContain(`run #${Number(run)}: started`);
    const results = JSON.parse(readFileSync(join(shared, 'report', 'results.json'), 'utf8')) as { run: { id: number; credits: { used: number } }; credits: { used: number } };
    expect(results.run.id).toBe(Number(run));
    expect(results.run.credits.used).toBe(results.credits.used);
    // `logs` on a host reads that host's member's log (each member keeps its own, on its host).
    const logA = await p.cli(['logs', 'shared.yaml', '--json'], { REELPIPE_HOST: 'host-a' }, dirs[0]);
    expect(logA.exitCode, logA.stderr).toBe(0);
    const runsOfA = new Set(logA.stdout.trim().split('\n').map((line) => (JSON.parse(line) as { runId?: number }).runId));
    const [{ id: runOfA }] = await p.rows<{ id: number }>("SELECT id FROM runs WHERE host = 'host-a'") as [{ id: number }];
    expect([...runsOfA]).toEqual([Number(runOfA)]);
    // Every output in the shared folder.
    expect(readdirSync(shared, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.mp4')).length).toBe(byStatus.downloaded);
  });

  test('a member paused with SIGSTOP past its lease and resumed: the other finished its jobs, nothing made twice, the paused one exits 75', async () => {
    const p = (project = await openProject({ store: 'postgres', speed: SPEED }));
    const { dirs } = checkouts(p, 40);
    const first = member(p, dirs[0]!, 'host-a');
    await until(() => created(p) >= 3, 'the first member to create jobs');
    const second = member(p, dirs[1]!, 'host-b');
    await until(() => created(p) >= 10, 'both members to create jobs');
    first.kill('SIGSTOP');
    const rs = await second;
    expect([0, 5], String(rs.all)).toContain(rs.exitCode);
    first.kill('SIGCONT');
    const rf = await first;
    expect(rf.exitCode, String(rf.all)).toBe(75);
    expect(p.sandbox.stats().duplicates.total).toBe(0);
    const byStatus = await countStatuses(p);
    expect((byStatus.downloaded ?? 0) + (byStatus.in_doubt ?? 0), JSON.stringify(byStatus)).toBe(40);
  });

  test('a member whose manifest yields another plan is refused with exit 2, naming the jobs the run does not have, and sends nothing', async () => {
    const p = (project = await openProject({ store: 'postgres', speed: SPEED }));
    // 120 jobs: the first member is still at work (holding the run) when the other starts, even on a loaded machine.
    const { dirs, shared: outputs } = checkouts(p, 120);
    p.write('checkout-b/shared.yaml', sharedManifest(outputs, 121));
    const first = member(p, dirs[0]!, 'host-a');
    await until(() => created(p) >= 2, 'the first member to create jobs');
    const other = await p.cli(['run', 'shared.yaml', '--time-scale', String(1 / SPEED), '--lease', '2s'], { REELPIPE_HOST: 'host-b' }, dirs[1]);
    expect(other.exitCode, other.stderr).toBe(2);
    expect(other.stderr).toMatch(/not those of run \d+ \(started on host-a\).*its plan has 121 jobs, the run's 120 jobs, not the same ones; not in the run's plan: short-121.*Nothing was sent/);
    expect(p.sandbox.jobs().filter((job) => job.body.script === 'Share the work, take 121.')).toEqual([]);
    const rf = await first;
    expect(rf.exitCode, String(rf.all)).toBe(0);
    expect(p.sandbox.stats().duplicates.total).toBe(0);
  });

  test('a member whose outputs: is a folder of its own (not the shared one) is refused with exit 2, naming the folder, and sends nothing', async () => {
    const p = (project = await openProject({ store: 'postgres', speed: SPEED }));
    const { dirs } = checkouts(p, 120);
    // The same plan, but its outputs in a folder only this checkout sees.
    p.write('checkout-b/shared.yaml', sharedManifest('out', 120));
    const first = member(p, dirs[0]!, 'host-a');
    await until(() => created(p) >= 2, 'the first member to create jobs');
    const other = await p.cli(['run', 'shared.yaml', '--time-scale', String(1 / SPEED), '--lease', '2s'], { REELPIPE_HOST: 'host-b' }, dirs[1]);
    expect(other.exitCode, other.stderr).toBe(2);
    expect(other.stderr).toMatch(/this host does not see the outputs folder run \d+ writes: .*checkout-b\/out\/\.reelpipe-run\.shared\.json is not there.*started on host-a.*absolute path on a mount every host shares.*Nothing was sent/s);
    const attemptsOfB = await p.rows("SELECT a.job_key FROM attempts a JOIN runs r ON r.id = a.run_id WHERE r.host = 'host-b'");
    expect(attemptsOfB).toEqual([]);
    const rf = await first;
    expect(rf.exitCode, String(rf.all)).toBe(0);
    expect(p.sandbox.stats().duplicates.total).toBe(0);
    expect(created(p)).toBe(120);
  });

  test('two members started at the same moment join one run and claim disjoint jobs', async () => {
    // At the members' speed 60 jobs take one member about 3 s: the other, however late its start, joins while jobs are left.
    const p = (project = await openProject({ store: 'postgres', speed: SPEED }));
    const { dirs } = checkouts(p, 60);
    const [ra, rb] = await Promise.all([member(p, dirs[0]!, 'host-a'), member(p, dirs[1]!, 'host-b')]);
    expect([ra.exitCode, rb.exitCode], `${String(ra.all)}\n---\n${String(rb.all)}`).toEqual([0, 0]);
    expect(p.sandbox.stats().duplicates.total).toBe(0);
    expect(created(p)).toBe(60);
    expect(await countStatuses(p)).toEqual({ downloaded: 60 });
    expect((await p.rows("SELECT id FROM events WHERE type = 'run:joined'")).length).toBe(1);
    const attempts = await p.rows<{ run_id: number; n: number }>('SELECT run_id, count(*) AS n FROM attempts GROUP BY run_id');
    expect(attempts.length).toBe(2);
  });
});

describe('jobs that need jobs another member makes (PostgreSQL)', { timeout: 120_000 }, () => {
  test('two members of a two-step run: a teaser waits for every short, whichever member made it, and is sent only once they are all done', async () => {
    const p = (project = await openProject({ store: 'postgres', speed: SPEED }));
    const { dirs, shared } = checkouts(p, 1);
    // 40 shorts two at a time: about 5 s for one member alone, so the second, however late its
    // start on a loaded machine, joins while shorts are left to claim.
    const shorts = Array.from({ length: 40 }, (_, i) => i + 1).join(', ');
    for (const name of ['a', 'b']) {
      p.write(`checkout-${name}/shared.yaml`, `version: 1
name: shared
outputs: ${shared}
concurrency: 2
steps:
  - id: shorts
    kind: ai_short
    matrix: { n: [${shorts}] }
    name: "short-{{ matrix.n }}"
    with: { script: "Take {{ matrix.n }} of the trail.", style: 3D, aspect_ratio: 9x16 }
  - id: teasers
    kind: boreal
    needs: [shorts]
    matrix: { seconds: [5, 10] }
    with: { prompt: A shoe in a stream, resolution: 720p, duration: "{{ matrix.seconds }}" }
`);
    }
    const [ra, rb] = await Promise.all([member(p, dirs[0]!, 'host-a'), member(p, dirs[1]!, 'host-b')]);
    expect([ra.exitCode, rb.exitCode], `${String(ra.all)}\n---\n${String(rb.all)}`).toEqual([0, 0]);
    expect(p.sandbox.stats().duplicates.total).toBe(0);
    expect(await countStatuses(p)).toEqual({ downloaded: 42 });
    // Both members made shorts; no teaser was sent before the last short was done.
    const hosts = await p.rows<{ host: string }>("SELECT DISTINCT r.host FROM attempts a JOIN runs r ON r.id = a.run_id WHERE a.job_key LIKE 'shorts:%'");
    expect(hosts.length).toBe(2);
    const jobs = p.sandbox.jobs();
    const lastShortDone = Math.max(...jobs.filter((job) => job.kind === 'ai_short').map((job) => Date.parse(job.history.at(-1)!.at)));
    const firstTeaser = Math.min(...jobs.filter((job) => job.kind === 'boreal').map((job) => Date.parse(job.created_at)));
    expect(firstTeaser).toBeGreaterThanOrEqual(lastShortDone);
  });
});

describe('a member cut off from the database (PostgreSQL)', { timeout: 120_000 }, () => {
  test('a member partitioned from the database stops sending before its lease could lapse; the other takes its jobs over; healed, it finds itself fenced; nothing is made twice', async () => {
    const p = (project = await openProject({ store: 'postgres', speed: SPEED }));
    const { dirs } = checkouts(p, 40);
    const direct = new URL(p.env.REELPIPE_STATE!);
    const proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port) });
    try {
      const through = new URL(direct.href);
      through.port = String(proxy.port);
      const cutOff = member(p, dirs[0]!, 'host-a', { REELPIPE_STATE: through.href });
      await until(() => created(p) >= 3, 'the member behind the proxy to create jobs');
      const other = member(p, dirs[1]!, 'host-b');
      await until(() => created(p) >= 10, 'both members to create jobs');
      proxy.cut();
      const cutAt = created(p);
      // Its lease (2 s, by its own clock) runs out: it writes no POST past it, whatever its link does.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      const afterLease = p.sandbox.jobs().length;
      const ro = await other;
      expect([0, 5], String(ro.all)).toContain(ro.exitCode);
      proxy.heal();
      const ra = await cutOff;
      // Healed, its writes are fenced (its lock was broken by the member that took its jobs over).
      expect([75, 74], String(ra.all)).toContain(ra.exitCode);
      expect(p.sandbox.stats().duplicates.total).toBe(0);
      expect(afterLease).toBeGreaterThanOrEqual(cutAt);
      // Each of the 40 jobs made at most once, whichever member sent it.
      expect(created(p)).toBeLessThanOrEqual(40);
      expect(String(ra.all)).toMatch(/no longer this run's|could not be written|lock on shared/);
      const byStatus = await countStatuses(p);
      expect((byStatus.downloaded ?? 0) + (byStatus.in_doubt ?? 0), JSON.stringify(byStatus)).toBe(40);
      expect((await p.rows("SELECT data FROM events WHERE type = 'lock:broken'")).length).toBeGreaterThanOrEqual(1);
    } finally {
      await proxy.close();
    }
  });
});
