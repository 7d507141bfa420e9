import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { loadManifest } from '../../src/manifest/index.js';
import { planManifest, type ListedPlan } from '../../src/plan/index.js';
import { executePlan } from '../../src/run/execute-plan.js';
import { runOutcome } from '../../src/run/outcome.js';
import { resolveRunOptions } from '../../src/run/run-options.js';
import type { Standing } from '../../src/run/standing.js';
import type { RunResult } from '../../src/run/execute-plan.js';
import type { StopReason } from '../../src/run/run-events.js';
import { openStore, type Store } from '../../src/state/index.js';
import { startScriptedServer } from '../helpers/scripted-server.js';
import { eventsIn } from './helpers/scripted-run.js';

let dir: string;
let store: Store;
const closers: (() => Promise<void> | void)[] = [];
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'reelpipe-end-'));
  store = await openStore(join(dir, 'state.db'));
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function planOf(yaml: string): Promise<ListedPlan> {
  writeFileSync(join(dir, 'm.yaml'), yaml);
  return planManifest(await loadManifest(join(dir, 'm.yaml'), { env: {}, cwd: dir }));
}

const ID = '11111111-2222-4333-8444-555555555555';
const options = (plan: ListedPlan) => resolveRunOptions({ ratePerSecond: 1000, timeScale: 0.0001 }, { concurrency: plan.concurrency, maxCredits: null });

describe('a webhook hint while a read is on the wire', () => {
  test('starts no second read, and a downloaded job never goes back to done', async () => {
    const plan = await planOf(`
version: 1
name: one
outputs: out
steps:
  - id: s
    kind: ai_short
    with: { script: "Hello there.", style: 3D, aspect_ratio: 9x16 }
`);
    let deliver: (token: string, delivery: { id: string; status: string }) => Promise<boolean> = async () => false;
    // A delivery saying the job is done: the one kind of hint that makes a read due (a pending
    // status changes nothing a read would, so it could never start a second read).
    const hint = async (id: string) => deliver((await store.lastAttempt(plan.jobs[0]!.key))!.hookToken!, { id, status: 'done' });
    let reads = 0;
    let secondRead: () => void = () => undefined;
    const readAgain = new Promise<void>((resolve) => (secondRead = resolve));
    let downloaded: () => void = () => undefined;
    const fileServed = new Promise<void>((resolve) => (downloaded = resolve));
    const done = (res: ServerResponse, url: string) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify([{ id: ID, status: 'done', credits_used: 5, video_output: `${url}/v.mp4` }]));
    const server = createServer((req, res) => {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      if (req.method === 'POST') return void res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ id: ID, status: 'pending' }));
      if (req.url === '/v.mp4') {
        res.writeHead(200, { 'content-type': 'video/mp4' }).end('MP4DATA');
        return downloaded();
      }
      // The delivery arrives while this read is on the wire, and the read's answer is held until
      // a second read arrives: without the one-read-in-flight guard the tracker starts one within
      // a few ms of the hint (its gathering wait); with it, none comes and the answer goes after
      // 200 ms. A second read answers only after the file was downloaded: a stale "done" that must
      // not move the job back.
      if (++reads === 1) {
        void hint(ID);
        void Promise.race([readAgain, delay(200)]).then(() => done(res, url));
      } else {
        secondRead();
        void fileServed.then(() => setTimeout(() => done(res, url), 20));
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const client = createClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiId: 'test-id', apiKey: 'test-key', retry: { maxAttempts: 1 } });
    closers.push(() => client.close());

    const receiver = { urlFor: (token: string) => `http://127.0.0.1:9/hooks/${token}`, setHandler: (handler: typeof deliver) => (deliver = handler) };
    const result = await executePlan(plan, { store, client, receiver }, options(plan));

    // First what the database says (a stale second answer must not move the job back: the guard
    // in Tracker.record), then that no second read was started at all (the guard in Tracker.hint).
    expect((await store.job(plan.jobs[0]!.key))?.status).toBe('downloaded');
    expect(result.counts).toEqual({ downloaded: 1 });
    expect(eventsIn(join(dir, 'state.db'), { type: 'job:done' })).toHaveLength(1);
    expect(runOutcome(result, 'm.yaml')).toBeUndefined();
    expect(reads).toBe(1);
  });
});

describe('a job already at the service whose upstream failed', () => {
  test('is still read to its end and downloaded: only submission waits for what a job needs', async () => {
    const plan = await planOf(`
version: 1
name: two
outputs: out
steps:
  - id: a
    kind: ai_short
    with: { script: "First.", style: 3D, aspect_ratio: 9x16 }
  - id: b
    kind: ai_short
    needs: [a]
    with: { script: "Second.", style: 3D, aspect_ratio: 9x16 }
`);
    const [a, b] = plan.jobs;
    await store.syncPlan(plan.manifestId, plan.jobs.map((j) => ({ key: j.key, step: j.step, kind: j.kind, request: j.request, creditsEstimated: 5 })));
    // As an earlier run left it: `a` failed at the service (after `b` was sent), `b` answered running.
    await store.write({ key: a!.key, move: { to: 'submitting', change: {}, type: 'job:intent' } });
    await store.write({ key: a!.key, move: { to: 'submitted', change: { remoteId: '99999999-2222-4333-8444-555555555555' }, type: 'job:answered' } });
    await store.write({ key: a!.key, move: { to: 'failed', change: { failedReason: 'render error', creditsUsed: 0 }, type: 'job:failed' } });
    await store.write({ key: b!.key, move: { to: 'submitting', change: {}, type: 'job:intent' } });
    await store.write({ key: b!.key, move: { to: 'submitted', change: { remoteId: ID, remoteStatus: 'running' }, type: 'job:answered' } });
    const server = await startScriptedServer();
    closers.push(() => server.close());
    server.script('GET', '/api/ai_shorts/', { status: 200, json: [{ id: ID, status: 'done', credits_used: 5, video_output: `${server.url}/v.mp4` }] });
    server.script('GET', '/v.mp4', { status: 200, text: 'MP4', headers: { 'content-type': 'video/mp4' } });
    const client = createClient({ baseUrl: server.url, apiId: 'test-id', apiKey: 'test-key', retry: { maxAttempts: 1 } });
    closers.push(() => client.close());

    const result = await executePlan(plan, { store, client }, options(plan));

    expect((await store.job(b!.key))?.status).toBe('downloaded');
    expect(result.counts).toEqual({ failed: 1, downloaded: 1 });
    expect(runOutcome(result, 'm.yaml')?.code).toBe('JOBS_FAILED');
  });
});

describe('the exit code is decided from where the jobs stand', () => {
  const standing = (over: Partial<Standing['open']> & Partial<Omit<Standing, 'open'>> = {}): Standing => ({
    finished: over.finished ?? 1,
    failed: over.failed ?? [],
    rejected: over.rejected ?? [],
    hookFailed: over.hookFailed ?? [],
    partlyFailed: over.partlyFailed ?? [],
    refused: over.refused ?? [],
    blocked: over.blocked ?? [],
    waitingOnDoubt: over.waitingOnDoubt ?? [],
    undecided: over.undecided ?? [],
    open: { rendering: over.rendering ?? [], toDownload: over.toDownload ?? [], notSubmitted: over.notSubmitted ?? [], toSearch: over.toSearch ?? [] },
  });
  const result = (s: Standing, stop: StopReason | null = null) =>
    ({ standing: s, stop, stopMessage: stop ? `${stop} happened` : null, credits: { estimated: 0, used: 0, spent: 0, cap: 10, overruns: [] } }) as unknown as RunResult;

  test.each<[string, Standing, StopReason | null, string | undefined, RegExp | undefined]>([
    ['everything on disk', standing(), null, undefined, undefined],
    ['files not yet downloaded', standing({ toDownload: ['d'] }), null, 'UNFINISHED', /1 job left \(1 finished, files not yet downloaded\): run the same command again/],
    ['jobs still rendering beside failures', standing({ rendering: ['r'], failed: ['x'] }), null, 'UNFINISHED', /1 job left .*; 1 job failed/],
    ['an in-doubt job that can be searched for', standing({ toSearch: ['s'] }), null, 'UNFINISHED', /in doubt, to be searched for/],
    ['only undecided doubts and failures', standing({ undecided: ['u'], failed: ['x'] }), null, 'JOBS_IN_DOUBT', /reelpipe doubt m\.yaml.*1 job failed/],
    ['an undecided doubt and the jobs planned behind it', standing({ undecided: ['u'], waitingOnDoubt: [{ key: 'w', on: ['u'] }] }), null, 'JOBS_IN_DOUBT', /reelpipe doubt m\.yaml.*; 1 job waits on 1 job in doubt: u ← w$/],
    ['jobs planned behind a searchable doubt: the next run moves them on', standing({ toSearch: ['s'], notSubmitted: ['n'] }), null, 'UNFINISHED', /^2 jobs left \(1 not submitted yet, 1 in doubt, to be searched for at the service\): run the same command again/],
    ['a rejection beside a failure: each named for what it is', standing({ failed: ['x'], rejected: ['y', 'z'] }), null, 'JOBS_FAILED', /^1 job failed and 2 jobs were rejected by the service: see the summary, then `reelpipe retry m\.yaml`$/],
    ['a partly failed job (some of its items failed, the rest on disk)', standing({ partlyFailed: ['p'] }), null, 'JOBS_FAILED', /^1 job partly failed \(some of its items failed; the made ones are on disk\): see the summary, then `reelpipe retry m\.yaml`$/],
    ['only failures and the jobs they block', standing({ failed: ['x'], blocked: ['y'] }), null, 'JOBS_FAILED', /1 job failed and 1 job not started because a job they need failed: .*reelpipe retry m\.yaml/],
    ['only jobs whose output hook failed (files on disk)', standing({ hookFailed: ['h'] }), null, 'JOBS_FAILED', /^1 job finished with its files on disk but an output hook failed: see `reelpipe status m\.yaml`, then `reelpipe retry m\.yaml --hooks`$/],
    ['failures beside a failed hook', standing({ failed: ['x'], hookFailed: ['h', 'i'] }), null, 'JOBS_FAILED', /1 job failed: .*reelpipe retry m\.yaml`; 2 jobs finished with their files on disk but an output hook failed/],
    ['only jobs whose files were refused (made and paid for; a fix, then a plain run)', standing({ refused: ['z'] }), null, 'JOBS_FAILED', /^1 job finished at the service but its files were refused .*`reelpipe status m\.yaml`, fix it, then run the same command again — it fetches them without paying again$/],
    ['files refused beside files that failed for now: running again comes first', standing({ refused: ['z'], toDownload: ['d'] }), null, 'UNFINISHED', /1 job left \(1 finished, files not yet downloaded\).*; 1 job finished at the service but its files were refused/],
    ['jobs rendering beside a failed hook', standing({ rendering: ['r'], hookFailed: ['h'] }), null, 'UNFINISHED', /1 job left .*; 1 job finished with its files on disk but an output hook failed/],
    ['a budget stop with jobs not submitted', standing({ notSubmitted: ['n'] }), 'budget', 'BUDGET_EXCEEDED', /credit cap stopped submitting.*1 not submitted yet/],
    ['a budget stop with nothing left (a finished manifest over a lowered cap)', standing(), 'budget', undefined, undefined],
    ['a signal after the last download', standing(), 'interrupted', undefined, undefined],
    ['a signal with jobs rendering', standing({ rendering: ['r'] }), 'interrupted', 'INTERRUPTED', /interrupted by a signal; 1 job left/],
    ['--max-wait with jobs rendering', standing({ rendering: ['r'] }), 'deadline', 'UNFINISHED', /deadline happened; 1 job left/],
    ['a local fault with jobs left', standing({ toDownload: ['d'] }), 'local-fault', 'LOCAL_FAULT', /fix the machine/],
    ['a lost lock, whatever is left', standing(), 'lock-lost', 'LOCKED', /the other run carries on/],
  ])('%s', (_, s, stop, code, message) => {
    const error = runOutcome(result(s, stop), 'm.yaml');
    expect(error?.code).toBe(code);
    if (message) expect(error?.message).toMatch(message);
  });

  // A member of a shared run that stopped itself and does not end the run says why it stopped; the
  // run's standing (here a job in doubt) is for the member that ends the run to report.
  test.each<[StopReason, string]>([['local-fault', 'LOCAL_FAULT'], ['interrupted', 'INTERRUPTED'], ['lock-lost', 'LOCKED']])('a member that stopped (%s) and does not end the run: %s, not the run\'s jobs in doubt', (stop, code) => {
    const member = { ...result(standing({ undecided: ['u'] }), stop), endsRun: false } as RunResult;
    expect(runOutcome(member, 'm.yaml')?.code).toBe(code);
    // The member that ends the run, stopped alike, reports the run's standing when nothing is left open.
    expect(runOutcome({ ...member, endsRun: true }, 'm.yaml')?.code).toBe(stop === 'lock-lost' ? 'LOCKED' : 'JOBS_IN_DOUBT');
  });

  // Each thing to do is said once, the stop's own instruction right after what is left.
  const RETRY = 'see the summary, then `reelpipe retry m.yaml`';
  const FETCH = 'see the reason in `reelpipe status m.yaml`, fix it, and the next run fetches them without paying again';
  test.each<[string, Standing, StopReason | null, string]>([
    ['--halt-after with jobs left: one retry, which also runs the rest', standing({ failed: ['x', 'y'], notSubmitted: ['n'] }), 'halt-after',
      'halt-after happened; 1 job left (1 not submitted yet); 2 jobs failed: see the summary, fix the cause, then `reelpipe retry m.yaml` (it resubmits the failed jobs and runs the rest)'],
    ['--halt-after beside refused files and a job in doubt', standing({ failed: ['x'], refused: ['z'], notSubmitted: ['n'], undecided: ['u'] }), 'halt-after',
      'halt-after happened; 1 job left (1 not submitted yet); 1 job failed: see the summary, fix the cause, then `reelpipe retry m.yaml` (it resubmits the failed jobs and runs the rest); ' +
        `1 job finished at the service but its files were refused (too large, at a private address, or behind a link in the outputs folder): ${FETCH}; also 1 job in doubt needs a decision`],
    ['a signal beside failures', standing({ rendering: ['r'], failed: ['x'] }), 'interrupted',
      `interrupted by a signal; 1 job left (1 still rendering at the service): run the same command again to resume; 1 job failed: ${RETRY}`],
    ['a signal beside refused files', standing({ rendering: ['r'], refused: ['z'] }), 'interrupted',
      'interrupted by a signal; 1 job left (1 still rendering at the service): run the same command again to resume; 1 job finished at the service but its files were refused ' +
        `(too large, at a private address, or behind a link in the outputs folder): ${FETCH}`],
    ['--max-wait beside failures', standing({ rendering: ['r'], failed: ['x'] }), 'deadline',
      `deadline happened; 1 job left (1 still rendering at the service): the next run carries on; 1 job failed: ${RETRY}`],
    ['an unreachable service beside a failed hook', standing({ rendering: ['r'], hookFailed: ['h'] }), 'unreachable',
      'unreachable happened; 1 job left (1 still rendering at the service): the next run carries on; 1 job finished with its files on disk but an output hook failed: see `reelpipe status m.yaml`, then `reelpipe retry m.yaml --hooks`'],
    ['a local fault beside failures', standing({ toDownload: ['d'], failed: ['x'] }), 'local-fault',
      `local-fault happened; 1 job left (1 finished, files not yet downloaded): fix the machine, then run the same command again; 1 job failed: ${RETRY}`],
    ['the budget beside failures', standing({ notSubmitted: ['n'], failed: ['x'] }), 'budget', `; 1 job left (1 not submitted yet); 1 job failed: ${RETRY}`],
    ['the credits beside failures', standing({ notSubmitted: ['n'], failed: ['x'] }), 'credits',
      `the account ran out of credits; submitting stopped: credits happened; 1 job left (1 not submitted yet); 1 job failed: ${RETRY}`],
    ['jobs rendering beside refused files', standing({ rendering: ['r'], refused: ['z'] }), null,
      '1 job left (1 still rendering at the service): run the same command again to resume; 1 job finished at the service but its files were refused ' +
        `(too large, at a private address, or behind a link in the outputs folder): ${FETCH}`],
  ])('one instruction for each thing to do: %s', (_, s, stop, text) => {
    const message = runOutcome(result(s, stop), 'm.yaml')?.message ?? '';
    expect(message.includes(text), message).toBe(true);
    expect(message.split('reelpipe retry m.yaml`').length - 1, message).toBeLessThanOrEqual(1);
    expect(message.split('run the same command again').length - 1, message).toBeLessThanOrEqual(1);
  });
});

describe('a message naming the jobs planned behind jobs in doubt', () => {
  const labelOf = (key: string) => (key === 'links:abc123' ? 'product-link' : key.startsWith('shorts:') ? `short-${key.slice(7)}` : undefined);
  const waiting = (keys: string[], on: string[]) => keys.map((key) => ({ key, on }));
  const standing = (undecided: string[], waitingOnDoubt: Standing['waitingOnDoubt']): Standing => ({
    finished: 0, failed: [], rejected: [], hookFailed: [], partlyFailed: [], refused: [], blocked: [], waitingOnDoubt, undecided,
    open: { rendering: [], toDownload: [], notSubmitted: [], toSearch: [] },
  });
  const outcome = (s: Standing) => runOutcome({ standing: s, stop: null, stopMessage: null } as unknown as RunResult, 'm.yaml', labelOf);

  test.each<[string, Standing, string]>([
    ['names each job in doubt by label and key, and the jobs waiting on it by label, at most five', standing(['links:abc123'], waiting(['shorts:1', 'shorts:2', 'shorts:3', 'shorts:4', 'shorts:5', 'shorts:6', 'shorts:7'], ['links:abc123'])),
      '7 jobs wait on 1 job in doubt: product-link (links:abc123) ← short-1, short-2, short-3, short-4, short-5 and 2 more'],
    ['a job waiting on two is listed under each; a job without a label is named by its key', standing(['links:abc123', 'boreal:b'], [{ key: 'shorts:1', on: ['links:abc123', 'boreal:b'] }, { key: 'final:f', on: ['boreal:b'] }]),
      '2 jobs wait on 2 jobs in doubt: product-link (links:abc123) ← short-1; boreal:b ← short-1, final:f'],
    ['at most three jobs in doubt are named', standing(['a:1', 'a:2', 'a:3', 'a:4'], ['a:1', 'a:2', 'a:3', 'a:4'].map((on, i) => ({ key: `shorts:${i}`, on: [on] }))),
      '4 jobs wait on 4 jobs in doubt: a:1 ← short-0; a:2 ← short-1; a:3 ← short-2; and 1 more job in doubt'],
  ])('%s', (_, s, text) => {
    const error = outcome(s);
    expect(error?.code).toBe('JOBS_IN_DOUBT');
    expect(error?.message.slice(-text.length - 2)).toBe(`; ${text}`);
  });
});

describe('files refused at download', () => {
  const ONE = `
version: 1
name: one
outputs: out
steps:
  - id: s
    kind: ai_short
    with: { script: "Hello there.", style: 3D, aspect_ratio: 9x16 }
`;
  async function serviceWithFile(file: { status: number; text: string }, copies: number) {
    const server = await startScriptedServer();
    closers.push(() => server.close());
    server.script('POST', '/api/ai_shorts/', { status: 201, json: { id: ID, status: 'pending' } });
    const done = { status: 200, json: [{ id: ID, status: 'done', credits_used: 5, video_output: `${server.url}/v.mp4` }] };
    server.script('GET', '/api/ai_shorts/', ...Array.from({ length: 8 }, () => done));
    server.script('GET', `/api/ai_shorts/${ID}/`, ...Array.from({ length: 8 }, () => ({ status: 200, json: done.json[0] })));
    server.script('GET', '/v.mp4', ...Array.from({ length: copies }, () => ({ ...file, headers: { 'content-type': 'video/mp4' } })));
    const client = createClient({ baseUrl: server.url, apiId: 'test-id', apiKey: 'test-key', retry: { maxAttempts: 1 } });
    closers.push(() => client.close());
    return { server, client };
  }

  test('a file above the download ceiling ends the run with exit 1 naming the fix, not "run again"; after the fix a plain run fetches it and pays nothing again', async () => {
    const plan = await planOf(ONE);
    const { server, client } = await serviceWithFile({ status: 200, text: 'M'.repeat(2000) }, 2);
    const key = plan.jobs[0]!.key;

    const refused = await executePlan(plan, { store, client }, resolveRunOptions({ ratePerSecond: 1000, timeScale: 0.0001, maxDownloadBytes: 100 }, { concurrency: 1, maxCredits: null }));
    expect((await store.job(key))?.status).toBe('done');
    expect((await store.job(key))?.failedReason).toMatch(/^download refused: .*above the download ceiling of 100 bytes/);
    expect(refused.standing.refused).toEqual([key]);
    const verdict = runOutcome(refused, 'm.yaml');
    expect(verdict?.code).toBe('JOBS_FAILED');
    expect(verdict?.message).toMatch(/^1 job finished at the service but its files were refused .*run the same command again — it fetches them without paying again$/);

    const fixed = await executePlan(plan, { store, client }, options(plan));
    expect((await store.job(key))?.status).toBe('downloaded');
    expect(runOutcome(fixed, 'm.yaml')).toBeUndefined();
    expect(server.requestsTo('POST', '/api/ai_shorts/')).toHaveLength(1);
  });

  test('a download that fails for now (the file host answers 500) leaves the job for the next run: exit 4', async () => {
    const plan = await planOf(ONE);
    const { client } = await serviceWithFile({ status: 500, text: 'busy' }, 8);
    const result = await executePlan(plan, { store, client }, options(plan));
    expect((await store.job(plan.jobs[0]!.key))?.failedReason).toMatch(/^download failed: /);
    expect(result.standing.refused).toEqual([]);
    expect(runOutcome(result, 'm.yaml')?.code).toBe('UNFINISHED');
  });
});
