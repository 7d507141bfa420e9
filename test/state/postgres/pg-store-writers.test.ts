import { createServer, connect, type Server, type Socket } from 'node:net';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { Store } from '../../../src/state/index.js';
import { PgStore } from '../../../src/state/postgres/pg-store.js';
import { ManualClock } from '../../../src/util/clock.js';
import { freshPgDatabase, type PgDatabase } from '../../helpers/pg-database.js';
import { bring, MANIFEST, newJob, remoteIdOf, sentRequest } from '../conformance/harness.js';

/**
 * The PostgreSQL store with many writers: stores on one database (other processes, other hosts)
 * racing the same job, the same claims, and a commit whose answer the network lost.
 */

/** The end of a simple query that commits, as the client sends it: "COMMIT" alone or after the last statement, then the NUL that ends the text. */
const COMMIT = Buffer.from('COMMIT\0');

/**
 * A loopback proxy in front of the server that, once armed, cuts the next COMMIT off: `after`,
 * the server has it and answers, and the answer is lost; `before`, the server never has it. Either
 * way the client's connection drops mid-COMMIT, as a link that fails at that instant would.
 */
class CommitCutter {
  private armed: 'before' | 'after' | null = null;
  cuts = 0;
  private readonly sockets = new Set<Socket>();

  private constructor(private readonly server: Server) {}

  static async start(target: URL): Promise<CommitCutter> {
    const server = createServer();
    const cutter = new CommitCutter(server);
    server.on('connection', (client) => cutter.pipe(client, Number(target.port), target.hostname));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return cutter;
  }

  get port(): number {
    return (this.server.address() as { port: number }).port;
  }

  arm(when: 'before' | 'after'): void {
    this.armed = when;
  }

  private pipe(client: Socket, port: number, host: string): void {
    const upstream = connect(port, host);
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => this.sockets.delete(socket));
    }
    let cutting = false;
    client.on('data', (chunk: Buffer) => {
      const when = this.armed;
      if (when === null || !chunk.includes(COMMIT)) return void upstream.write(chunk);
      this.armed = null;
      this.cuts += 1;
      cutting = true;
      if (when === 'before') return void cutBoth(client, upstream);
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      // The server answered the COMMIT: it committed, and the client never hears of it.
      if (cutting) return void cutBoth(client, upstream);
      client.write(chunk);
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

const cutBoth = (a: Socket, b: Socket): void => {
  a.destroy();
  b.destroy();
};

describe('the PostgreSQL store with many writers', () => {
  let database: PgDatabase;
  const opened: Store[] = [];
  const clock = new ManualClock();
  const open = async (url = database.url): Promise<PgStore> => {
    const store = await PgStore.open(url, clock);
    opened.push(store);
    return store.useManifest(MANIFEST);
  };

  beforeEach(async () => {
    database = await freshPgDatabase();
  });

  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
    await database.drop();
  });

  test('two stores racing the same guarded write: one moves each job, the other is told it did not', async () => {
    const [a, b] = [await open(), await open()];
    const keys = Array.from({ length: 24 }, (_, i) => `j${i}`);
    await a.syncPlan(MANIFEST, keys.map((key) => newJob(key)));
    for (const key of keys) await bring(a, key, 'submitting');
    const answer = (store: Store, key: string, remoteId: string) => store.write({
      key,
      onlyFrom: ['submitting'],
      attempt: { id: 'open intent', state: 'answered', remoteId },
      move: { to: 'submitted', change: { remoteId }, type: 'job:answered' },
      durable: true,
    });
    const raced = await Promise.all(keys.map((key) => Promise.all([answer(a, key, `a-${key}`), answer(b, key, `b-${key}`)])));
    for (const [key, pair] of keys.map((k, i) => [k, raced[i]!] as const)) {
      expect(pair.filter((w) => w.moved)).toHaveLength(1);
      const winner = pair.find((w) => w.moved)!;
      const row = await a.job(key);
      expect(row).toMatchObject({ status: 'submitted', remoteId: winner.row.remoteId });
      // The attempt was closed once, by the winner: its remote id is the job's.
      expect(await a.attempts(key)).toEqual([expect.objectContaining({ state: 'answered', remoteId: winner.row.remoteId })]);
      expect(pair.find((w) => !w.moved)?.row.status).toBe('submitted');
    }
  });

  test('two stores writing waves over the same jobs in opposite orders: each job moves once, and neither deadlocks', async () => {
    const [a, b] = [await open(), await open()];
    const keys = Array.from({ length: 40 }, (_, i) => `w${String(i).padStart(2, '0')}`);
    await a.syncPlan(MANIFEST, keys.map((key) => newJob(key)));
    for (const key of keys) await bring(a, key, 'submitted');
    const wave = (store: Store, order: string[]) => store.writeAll(order.map((key) => ({ key, onlyFrom: ['submitted' as const], move: { to: 'running' as const, type: 'job:status' as const } })));
    const [first, second] = await Promise.all([wave(a, keys), wave(b, [...keys].reverse())]);
    const movedBy = new Map<string, number>();
    for (const w of [...first, ...second]) if (w.moved) movedBy.set(w.row.key, (movedBy.get(w.row.key) ?? 0) + 1);
    expect([...movedBy.keys()].sort()).toEqual(keys);
    expect([...movedBy.values()].every((n) => n === 1)).toBe(true);
    expect((await a.jobsWithStatus(['running'])).map((r) => r.key)).toEqual(keys);
  });

  test('two stores of one run claiming at once: no job is handed out twice, and every one is handed out', async () => {
    const [a, b] = [await open(), await open()];
    const keys = Array.from({ length: 60 }, (_, i) => `c${i}`);
    await a.syncPlan(MANIFEST, keys.map((key) => newJob(key)));
    const runId = await a.startRun('h', 1, null);
    b.forRun(runId);
    const claimed: string[] = [];
    const drain = async (store: Store) => {
      for (let got = await store.claim(4); got.length > 0; got = await store.claim(4)) claimed.push(...got.map((c) => c.key));
    };
    await Promise.all([drain(a), drain(b), drain(a), drain(b)]);
    expect(claimed).toHaveLength(keys.length);
    expect(new Set(claimed)).toEqual(new Set(keys));
  });

  test('two stores taking the run lock at once: one holds it, the other is refused', async () => {
    const [a, b] = [await open(), await open()];
    const taker = (token: string, pid: number) => ({ name: 'lock', token, pid, host: 'h', pidNamespace: 'ns', isAlive: () => true, heartbeatMs: 10_000, staleAfterMs: 60_000 });
    const outcomes = await Promise.allSettled([a.takeLock(taker('t-a', 1)), b.takeLock(taker('t-b', 2))]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    const holder = outcomes[0]!.status === 'fulfilled' ? 't-a' : 't-b';
    expect((await a.lockRow('lock'))?.token).toBe(holder);
    expect(String((outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult).reason)).toMatch(/another run/);
  });

  test('two stores starting the same hook at once: the later start finds the earlier one and interrupts it', async () => {
    const [a, b] = [await open(), await open()];
    await a.syncPlan(MANIFEST, [newJob('a')]);
    const target = { jobKey: 'a', outputIdx: 0, sha256: 's' };
    const ids = await Promise.all([a.hookBegin('on_output', target, ['x']), b.hookBegin('on_output', target, ['x'])]);
    expect((await a.hookLatest('a')).get(0)).toMatchObject({ id: Math.max(...ids), state: 'running' });
    // The store answers only the newest row of an output: the table says what became of the other.
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const { rows } = await client.query<{ id: string; state: string }>('SELECT id, state FROM hook_runs ORDER BY id');
    await client.end();
    expect(rows.map((r) => [Number(r.id), r.state])).toEqual([[Math.min(...ids), 'interrupted'], [Math.max(...ids), 'running']]);
  });

  describe('an intent whose COMMIT answer was lost', () => {
    let cutter: CommitCutter;
    let via: string;

    beforeEach(async () => {
      cutter = await CommitCutter.start(new URL(database.url));
      const url = new URL(database.url);
      url.port = String(cutter.port);
      via = url.toString();
    });

    afterEach(async () => {
      for (const store of opened.splice(0)) await store.close();
      await cutter.stop();
    });

    test.each([
      ['after', 'committed: read back, its answer stands'],
      ['before', 'not committed: read back as absent, and written again'],
    ] as const)('cut %s the server had it — %s; the intent is there once', async (when, _outcome) => {
      const store = await open(via);
      await store.syncPlan(MANIFEST, [newJob('a')]);
      cutter.arm(when);
      const id = await store.recordIntent({ key: 'a', request: sentRequest('a'), hookToken: 'tok-a', pathId: null, creditsReserved: 5 });
      expect(cutter.cuts).toBe(1);
      const other = await open();
      expect(await other.attempts('a')).toEqual([expect.objectContaining({ id, state: 'intent', hookToken: 'tok-a' })]);
      expect(await other.job('a')).toMatchObject({ status: 'submitting', attemptCount: 1, creditsReserved: 5 });
      const { totals } = await other.money([{ key: 'a', step: 'shorts', outputName: 'a' }]);
      expect([...totals.held]).toEqual([['a', 5]]);
    });

    test('a wave of intents and answers whose commit was lost: every caller hears once, nothing is written twice', async () => {
      const store = await open(via);
      const keys = ['a', 'b', 'c', 'd'];
      await store.syncPlan(MANIFEST, keys.map((key) => newJob(key)));
      for (const key of ['a', 'b']) await bring(store, key, 'submitting');
      cutter.arm('after');
      const [ids, answered] = await Promise.all([
        Promise.all(['c', 'd'].map((key) => store.recordIntent({ key, request: sentRequest(key), hookToken: null, pathId: null, creditsReserved: 1 }))),
        Promise.all(['a', 'b'].map((key) => store.write({
          key, onlyFrom: ['submitting'], attempt: { id: 'open intent', state: 'answered', remoteId: remoteIdOf(key) },
          move: { to: 'submitted', change: { remoteId: remoteIdOf(key) }, type: 'job:answered' }, durable: true,
        }))),
      ]);
      expect(cutter.cuts).toBe(1);
      expect(answered.map((w) => w.moved)).toEqual([true, true]);
      const other = await open();
      for (const [i, key] of ['c', 'd'].entries()) expect(await other.attempts(key)).toEqual([expect.objectContaining({ id: ids[i], state: 'intent' })]);
      expect((await other.jobs(keys)).map((r) => [r.key, r.status, r.attemptCount])).toEqual([
        ['a', 'submitted', 1], ['b', 'submitted', 1], ['c', 'submitting', 1], ['d', 'submitting', 1],
      ]);
    });
  });
});
