import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { freePort } from '../helpers/free-port.js';
import { startHttpProxy, type HttpProxy } from '../helpers/http-proxy.js';
import { pgRows } from '../helpers/pg-database.js';
import { databaseUrl, startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { countStatuses, created, openProject, until, type Project } from './harness.js';
import { checkouts, member } from './members-harness.js';

/**
 * Several hosts of one run (members-harness.ts) when the world around them misbehaves: hosts whose
 * clocks are off, a 429 one member meets, and the database restarted under three members. Each asserts zero duplicate
 * creations at the sandbox, nothing lost, and the credits the state counts equal to what the
 * service charged for the jobs it knows.
 */
let project: Project | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

/** Credits the state counts, and what the service charged for the jobs whose ids the state holds. */
async function creditsBothSides(p: Project, rows: Project['rows']): Promise<{ state: number; service: number }> {
  const known = await rows<{ remote_id: string | null; credits: number | null }>('SELECT remote_id, coalesce(credits_used, 0) + credits_prior AS credits FROM jobs');
  const ids = new Set(known.map((row) => row.remote_id).filter((id) => id !== null));
  const state = known.reduce((sum, row) => sum + Number(row.credits ?? 0), 0);
  const service = p.sandbox.jobs().filter((job) => ids.has(job.id)).reduce((sum, job) => sum + job.credits_used, 0);
  return { state, service };
}

describe('members whose clocks are off (PostgreSQL)', { timeout: 120_000 }, () => {
  test('three members, one two minutes ahead and one two minutes behind, 6 s leases: no member is taken for dead, nothing made twice, every job done', async () => {
    const p = (project = await openProject({ store: 'postgres', speed: 100 }));
    const { dirs } = checkouts(p, 90);
    const skews = { 'host-a': '120000', 'host-b': '-120000', 'host-c': '0' };
    // Leases of 6 s (not the harness's 2 s): a loaded machine's stall is then no takeover, and a skew of two minutes is twenty leases.
    const running = Object.entries(skews).map(([host, skew], i) => member(p, dirs[i]!, host, { REELPIPE_TEST_CLOCK_OFFSET_MS: skew }, ['--lease', '6s']));
    // `hosts` on a host two minutes ahead, mid-run: live members are live (judged by the database's clock), none lapsed.
    await until(() => created(p) >= 15, 'the members to create 15 jobs');
    const midRun = await p.cli(['hosts', 'shared.yaml', '--json'], { REELPIPE_TEST_CLOCK_OFFSET_MS: '120000' }, dirs[0]);
    const seen = (JSON.parse(midRun.stdout) as { members: { state: string }[] }).members.map((m) => m.state);
    expect(seen.some((state) => state === 'busy' || state === 'idle'), midRun.stdout).toBe(true);
    expect(seen).not.toContain('lapsed');
    const results = await Promise.all(running);
    // Leases are timed by the database's clock: a member two minutes behind is not lapsed, one ahead does not see the others lapsed.
    for (const result of results) expect(result.exitCode, String(result.all)).toBe(0);
    expect((await p.rows("SELECT data FROM events WHERE type = 'lock:broken'")).length).toBe(0);
    expect(p.sandbox.stats().duplicates.total).toBe(0);
    expect(created(p)).toBe(90);
    expect(await countStatuses(p)).toEqual({ downloaded: 90 });
    const credits = await creditsBothSides(p, p.rows);
    expect(credits.state).toBe(credits.service);
    // Each skewed member did a share of the work, and `hosts` lists all three as having left, none gone.
    const hosts = await p.rows<{ host: string }>('SELECT DISTINCT r.host FROM attempts a JOIN runs r ON r.id = a.run_id');
    expect(hosts.map((row) => row.host).sort()).toEqual(['host-a', 'host-b', 'host-c']);
    const listed = JSON.parse((await p.cli(['hosts', 'shared.yaml', '--json'], {}, dirs[0])).stdout) as { members: { host: string; state: string }[] };
    expect(Object.fromEntries(listed.members.map((m) => [m.host, m.state]))).toEqual({ 'host-a': 'left', 'host-b': 'left', 'host-c': 'left' });
  });
});

describe('members killed at exact instants (PostgreSQL)', { timeout: 120_000 }, () => {
  test('one member SIGKILLed right after an intent is committed, another right after a POST is answered: the third takes both over, nothing is resent without proof, nothing made twice', async () => {
    const p = (project = await openProject({ store: 'postgres', speed: 100 }));
    const { dirs } = checkouts(p, 90);
    const [a, b, c] = [
      member(p, dirs[0]!, 'host-a', { REELPIPE_TEST_KILL_AT: 'before-post:4' }),
      member(p, dirs[1]!, 'host-b', { REELPIPE_TEST_KILL_AT: 'after-post:6' }),
      member(p, dirs[2]!, 'host-c'),
    ];
    const [ra, rb, rc] = await Promise.all([a, b, c]);
    expect([ra.signal, rb.signal]).toEqual(['SIGKILL', 'SIGKILL']);
    // host-c ends the run: 5 when the two killed POSTs are held in doubt (an AI Short cannot be searched).
    expect([0, 5], String(rc.all)).toContain(rc.exitCode);
    expect(p.sandbox.stats().duplicates.total).toBe(0);
    const byStatus = await countStatuses(p);
    expect((byStatus.downloaded ?? 0) + (byStatus.in_doubt ?? 0), JSON.stringify(byStatus)).toBe(90);
    // In doubt: at most the POSTs the killed members had in flight (6 each, their concurrency), none sent again.
    expect(byStatus.in_doubt ?? 0).toBeLessThanOrEqual(12);
    expect(created(p)).toBeLessThanOrEqual(90);
    expect((await p.rows("SELECT data FROM events WHERE type = 'lock:broken'")).length).toBeGreaterThanOrEqual(2);
    const credits = await creditsBothSides(p, p.rows);
    expect(credits.state).toBe(credits.service);
  });
});

/**
 * A proxy to the sandbox for one member: it forwards every request, but answers the next `n` AI
 * Short creations after `throttle(n)` with 429 and Retry-After: 3, noting when.
 */
async function throttlingProxy(target: string): Promise<HttpProxy & { throttle(n: number): void; throttledAt: number[] }> {
  let left = 0;
  const throttledAt: number[] = [];
  const proxy = await startHttpProxy({
    target: () => target,
    answer: (req) => {
      if (left <= 0 || req.method !== 'POST' || !req.url.startsWith('/api/ai_shorts/')) return undefined;
      left--;
      throttledAt.push(Date.now());
      return { status: 429, headers: { 'content-type': 'application/json', 'retry-after': '3' }, body: JSON.stringify({ detail: 'Request was throttled. Expected available in 3 seconds.' }) };
    },
  });
  return { ...proxy, throttle: (n) => void (left = n), throttledAt };
}

describe('a 429 one member meets (PostgreSQL)', { timeout: 120_000 }, () => {
  test('under the account\'s rate, a 429 with Retry-After met by one member holds the other two: they send nothing in that window, then go on; nothing made twice', async () => {
    const p = (project = await openProject({ store: 'postgres', speed: 100 }));
    const { dirs } = checkouts(p, 150);
    expect((await p.cli(['account', 'set', '--rate', '60'])).exitCode).toBe(0);
    const proxy = await throttlingProxy(p.sandbox.url);
    try {
      // host-a talks to the service through the proxy; host-b and host-c directly, and never meet a 429.
      // Its outputs are links to the sandbox itself, not to the service it talks to (the proxy): allowed by name.
      const throughProxy = { REELPIPE_BASE_URL: proxy.url, REELPIPE_DOWNLOAD_ALLOW_HOSTS: new URL(p.sandbox.url).host };
      const members = [member(p, dirs[0]!, 'host-a', throughProxy), member(p, dirs[1]!, 'host-b'), member(p, dirs[2]!, 'host-c')];
      const sentBy = async (host: string) => Number((await p.rows<{ n: number }>(`SELECT count(*) AS n FROM attempts a JOIN runs r ON r.id = a.run_id WHERE r.host = '${host}'`))[0]?.n ?? 0);
      for (let tries = 0; tries < 400 && ((await sentBy('host-b')) === 0 || (await sentBy('host-c')) === 0 || (await sentBy('host-a')) === 0); tries++) await new Promise((resolve) => setTimeout(resolve, 50));
      proxy.throttle(1);
      const ends = await Promise.all(members);
      for (const end of ends) expect([0, 5], String(end.all)).toContain(end.exitCode);
      expect(proxy.throttledAt).toHaveLength(1);
      const at = proxy.throttledAt[0]!;
      // When host-b and host-c created their jobs (the sandbox's clock is this process's).
      const ids = await p.rows<{ remote_id: string; host: string }>('SELECT a.remote_id, r.host FROM attempts a JOIN runs r ON r.id = a.run_id WHERE a.remote_id IS NOT NULL');
      const others = new Set(ids.filter((row) => row.host !== 'host-a').map((row) => row.remote_id));
      const createdAt = p.sandbox.jobs().filter((job) => others.has(job.id)).map((job) => Date.parse(job.created_at));
      // The others read the shared cooldown at their next tick (each second; on a loaded machine later): well before its end (3 s), nothing.
      const inCooldown = createdAt.filter((t) => t > at + 1_800 && t < at + 2_900);
      expect(inCooldown, `created by host-b/host-c at ${createdAt.map((t) => t - at).join(', ')} ms from the 429`).toEqual([]);
      expect(createdAt.some((t) => t >= at + 2_900)).toBe(true);
      expect(p.sandbox.stats().duplicates.total).toBe(0);
      expect(await countStatuses(p)).toEqual({ downloaded: 150 });
    } finally {
      await proxy.close();
    }
  });
});

describe('members sharing one webhook address (PostgreSQL)', { timeout: 120_000 }, () => {
  test('three members behind one public webhook URL (a proxy handing deliveries out in turn): each receiver records deliveries for the others\' attempts, none refused, every job done once', async () => {
    const p = (project = await openProject({ store: 'postgres', speed: 100 }));
    const { dirs } = checkouts(p, 90);
    const ports = await Promise.all([freePort(), freePort(), freePort()]);
    let turn = 0;
    const handed: { token: string; receiver: number; status: number }[] = [];
    const chosen = new Map<string, number>();
    const proxy = await startHttpProxy({
      target: (req) => {
        const receiver = turn++ % ports.length;
        chosen.set(req.url, receiver);
        return `http://127.0.0.1:${ports[receiver]}`;
      },
      forwarded: (req, status) => handed.push({ token: req.url.split('/hooks/')[1] ?? '', receiver: chosen.get(req.url) ?? -1, status }),
    });
    try {
      const hosts = ['host-a', 'host-b', 'host-c'];
      const ends = await Promise.all(hosts.map((host, i) => member(p, dirs[i]!, host, {}, ['--webhook-listen', `127.0.0.1:${ports[i]}`, '--webhook-public-url', proxy.url])));
      for (const end of ends) expect(end.exitCode, String(end.all)).toBe(0);
      expect(p.sandbox.stats().duplicates.total).toBe(0);
      expect(await countStatuses(p)).toEqual({ downloaded: 90 });
      // Every delivery was taken (a token is looked up in the database, whichever member made the attempt)…
      expect(handed.length).toBeGreaterThan(0);
      expect(handed.filter((d) => d.status >= 300)).toEqual([]);
      // …and many reached a member other than the one whose attempt it named.
      const owners = new Map((await p.rows<{ hook_token: string; host: string }>('SELECT a.hook_token, r.host FROM attempts a JOIN runs r ON r.id = a.run_id WHERE a.hook_token IS NOT NULL')).map((row) => [row.hook_token, row.host]));
      const elsewhere = handed.filter((d) => owners.get(d.token) !== undefined && owners.get(d.token) !== hosts[d.receiver]);
      expect(elsewhere.length).toBeGreaterThan(0);
    } finally {
      await proxy.close();
    }
  });
});

describe('the database restarted under three members (PostgreSQL)', { timeout: 150_000 }, () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await startPostgres();
  }, 30_000);
  afterAll(() => server?.stop());

  test('PostgreSQL restarted while three members render 150 jobs: resumed, every job done once (or in doubt, at most the members\' in-flight POSTs), credits equal', async () => {
    const p = (project = await openProject({ store: 'postgres', speed: 100 }));
    await pgRows('CREATE DATABASE members_restart', server.url);
    const url = databaseUrl(server.url, 'members_restart');
    const rows: Project['rows'] = (sql) => pgRows(sql, url);
    const { dirs } = checkouts(p, 150);
    const env = { REELPIPE_STATE: url };
    const members = ['host-a', 'host-b', 'host-c'].map((host, i) => member(p, dirs[i]!, host, env));
    await until(() => created(p) >= 30, 'the members to create 30 jobs');
    const sentBefore = created(p);
    await server.restart('fast');
    const ends = await Promise.all(members);
    const said = ends.map((end) => String(end.all));
    // Mid-run: jobs sent before the restart, not all of them.
    expect(sentBefore).toBeLessThan(150);
    // A member rides out the restart or stops (its state unwritable: 74; its lock lost: 75); none crashes.
    for (const end of ends) expect([0, 5, 74, 75], said.join('\n---\n')).toContain(end.exitCode);
    // Whatever the members did, running the manifest again finishes the batch.
    const codes: (number | undefined)[] = [];
    while (codes.length < 3 && (await countStatuses({ rows })).downloaded !== 150 - ((await countStatuses({ rows })).in_doubt ?? 0)) {
      const again = await p.cli(['run', 'shared.yaml', '--time-scale', String(1 / 100), '--lease', '2s'], { ...env, REELPIPE_HOST: 'host-a' }, dirs[0]);
      codes.push(again.exitCode);
      said.push(again.stderr);
    }
    const byStatus = await countStatuses({ rows });
    expect((byStatus.downloaded ?? 0) + (byStatus.in_doubt ?? 0), `${JSON.stringify(byStatus)} after ${codes.join(', ')}\n${said.join('\n---\n')}`).toBe(150);
    expect(byStatus.in_doubt ?? 0).toBeLessThanOrEqual(18);
    expect(p.sandbox.stats().duplicates.total).toBe(0);
    expect(created(p)).toBeLessThanOrEqual(150);
    const credits = await creditsBothSides(p, rows);
    expect(credits.state).toBe(credits.service);
  });
});
