import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createClient, type ServiceClient } from '../../src/api/index.js';
import { loadManifest } from '../../src/manifest/index.js';
import { planManifest, type ListedPlan } from '../../src/plan/index.js';
import { executePlan } from '../../src/run/execute-plan.js';
import { RunEvents } from '../../src/run/run-events.js';
import { resolveRunOptions, type RunOptions } from '../../src/run/run-options.js';
import { mintHookToken, startWebhookReceiver, type Delivery } from '../../src/run/track/webhook-receiver.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { openStore, type Store } from '../../src/state/index.js';
import { freePort } from '../helpers/free-port.js';
import { startScriptedServer, type ScriptedServer } from '../helpers/scripted-server.js';
import { eventsIn } from './helpers/scripted-run.js';

let dir: string;
let store: Store;
const closers: (() => Promise<void> | void)[] = [];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'reelpipe-run-'));
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

function clientFor(url: string): ServiceClient {
  const client = createClient({ baseUrl: url, apiId: 'test-id', apiKey: 'test-key', retry: { maxAttempts: 1 } });
  closers.push(() => client.close());
  return client;
}

const options = (plan: ListedPlan, extra: RunOptions = {}) =>
  resolveRunOptions({ ratePerSecond: 1000, ...extra }, { concurrency: plan.concurrency, maxCredits: plan.budget.maxCredits });

const SHORT = `
version: 1
name: one
outputs: out
steps:
  - id: s
    kind: ai_short
    with: { script: "Hello there.", style: 3D, aspect_ratio: 9x16 }
`;
const ID = '11111111-2222-4333-8444-555555555555';
const short = (status: string, extra: Record<string, unknown> = {}) => ({ id: ID, status, credits_used: 5, ...extra });

describe('tracking against a scripted service', () => {
  let server: ScriptedServer;
  beforeEach(async () => {
    server = await startScriptedServer();
    closers.push(() => server.close());
  });

  test('a refused ids list falls back to single reads for the rest of the run', async () => {
    const plan = await planOf(SHORT);
    server.script('POST', '/api/ai_shorts/', { status: 201, json: short('pending') });
    server.script('GET', '/api/ai_shorts/', { status: 400, json: { ids: ['Unknown filter.'] } });
    server.script('GET', `/api/ai_shorts/${ID}/`, { status: 200, json: short('running') }, { status: 200, json: short('done', { video_output: `${server.url}/v.mp4` }) });
    server.script('GET', '/v.mp4', { status: 200, text: 'MP4DATA', headers: { 'content-type': 'video/mp4' } });
    const result = await executePlan(plan, { store, client: clientFor(server.url) }, options(plan, { timeScale: 0.0001 }));
    expect(result.counts).toEqual({ downloaded: 1 });
    expect(server.requestsTo('GET', '/api/ai_shorts/')).toHaveLength(1);
    expect(server.requestsTo('GET', `/api/ai_shorts/${ID}/`)).toHaveLength(2);
    expect(server.unscripted).toEqual([]);
  });

  test('a job the list leaves out is read alone, and a 404 there fails it with the reason (no endless polling)', async () => {
    const plan = await planOf(SHORT);
    server.script('POST', '/api/ai_shorts/', { status: 201, json: short('pending') });
    server.script('GET', '/api/ai_shorts/', { status: 200, json: [] });
    server.script('GET', `/api/ai_shorts/${ID}/`, { status: 404, json: { detail: 'No AiShort matches the given query.' } });
    const result = await executePlan(plan, { store, client: clientFor(server.url) }, options(plan, { timeScale: 0.0001 }));
    expect(result.counts).toEqual({ failed: 1 });
    expect((await store.job(plan.jobs[0]!.key))?.failedReason).toMatch(/no longer knows job .*No AiShort matches/);
  });

  test('a job found submitting at start-up is in doubt; an unsearchable kind is held, not resent', async () => {
    const plan = await planOf(SHORT);
    const [job] = plan.jobs;
    await store.syncPlan(plan.manifestId, [{ key: job!.key, step: 's', kind: 'ai_short', request: job!.request, creditsEstimated: 5 }]);
    // As a run killed between its intent and the answer leaves it.
    await store.recordIntent({ key: job!.key, request: job!.request, hookToken: null, pathId: null, creditsReserved: 0 });
    const result = await executePlan(plan, { store, client: clientFor(server.url) }, options(plan));
    expect(result.heldInDoubt).toEqual([job!.key]);
    expect(server.requests).toEqual([]);
    expect((await store.lastAttempt(job!.key))?.state).toBe('in_doubt');
  });

  test('an upstream result lacking the referenced field fails the dependent job before anything is sent', async () => {
    const plan = await planOf(`
version: 1
name: two
outputs: out
steps:
  - id: page
    kind: link
    download: false
    with: { url: https://shop.example.com/p/1 }
  - id: ads
    kind: html_ads
    with: { link: "{{ steps.page.id }}", style_ids: [quiz-3q], promotion_info: "{{ steps.page.title }}" }
`);
    server.script('POST', '/api/links/', { status: 201, json: { id: ID, url: 'https://shop.example.com/p/1', title: '' } });
    const result = await executePlan(plan, { store, client: clientFor(server.url) }, options(plan));
    const ads = plan.jobs.find((j) => j.step === 'ads')!;
    expect(await store.job(ads.key)).toMatchObject({ status: 'rejected', failedReason: expect.stringMatching(/is empty in the result/) });
    expect(result.counts.rejected).toBe(1);
    expect(server.requestsTo('POST', '/api/html_interactive_ads/')).toEqual([]);
  });
});

describe('webhooks against the sandbox', () => {
  let sandbox: Sandbox;
  beforeEach(async () => {
    sandbox = await startSandbox({ port: 0, speed: 2000, seed: 3 });
    closers.push(() => sandbox.close());
  });

  test('a delivery is a hint that makes the job be read at once, long before its poll is due', async () => {
    const plan = await planOf(SHORT);
    const events = new RunEvents();
    let handler: (token: string, delivery: Delivery) => Promise<boolean> = async () => false;
    const port = await freePort();
    const live = await startWebhookReceiver(`127.0.0.1:${port}`, `http://127.0.0.1:${port}`, (token, delivery) => handler(token, delivery));
    closers.push(() => live.close());
    // Time scale 1: without the hint the first read of an AI Short would come after ~30 s.
    const result = await executePlan(
      plan,
      { store, client: clientFor(sandbox.url), events, receiver: { urlFor: live.urlFor, setHandler: (fn) => (handler = fn) } },
      options(plan, { timeScale: 1, maxWaitMs: 10_000 }),
    );
    expect(result.stop).toBeNull();
    expect(result.counts).toEqual({ downloaded: 1 });
    expect(live.deliveries).toBeGreaterThan(0);
    const attempt = await store.lastAttempt(plan.jobs[0]!.key);
    expect(attempt?.hookToken).toMatch(/^[\w-]{22}$/);
    expect(attempt?.request.webhook_url).toBe(`http://127.0.0.1:${port}/hooks/${attempt?.hookToken}`);
  });

  test('the receiver answers 404 off an attempt\'s secret path, and passes what a delivery says', async () => {
    const heard: [string, Delivery][] = [];
    const token = mintHookToken();
    const receiver = await startWebhookReceiver('127.0.0.1:0', 'https://hooks.example.com/base/', async (t, delivery) => {
      heard.push([t, delivery]);
      return t === token;
    });
    closers.push(() => receiver.close());
    expect(receiver.urlFor(token)).toBe(`https://hooks.example.com/base/hooks/${token}`);
    const local = `http://127.0.0.1:${receiver.listening.port}${new URL(receiver.urlFor(token)).pathname}`;
    const guess = await fetch(`http://127.0.0.1:${receiver.listening.port}/hooks/${mintHookToken()}`, { method: 'POST', body: '{"id":"x"}' });
    expect(guess.status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${receiver.listening.port}/hooks/short`, { method: 'POST', body: '{}' })).status).toBe(404);
    expect((await fetch(local, { method: 'POST', body: 'not json' })).status).toBe(204);
    expect((await fetch(local, { method: 'POST', body: JSON.stringify({ id: 'job-1', status: 'done' }) })).status).toBe(204);
    expect(heard.map(([, d]) => d)).toEqual([{ id: 'x' }, {}, { id: 'job-1', status: 'done' }]);
  });

  test('a run records every transition as an event, from intent to download', async () => {
    const plan = await planOf(SHORT);
    await executePlan(plan, { store, client: clientFor(sandbox.url) }, options(plan, { timeScale: 0.0005 }));
    const types = eventsIn(join(dir, 'state.db'), { jobKey: plan.jobs[0]!.key }).map((e) => e.type);
    expect(types[0]).toBe('job:intent');
    expect(types).toContain('job:answered');
    expect(types).toContain('job:done');
    expect(types.at(-1)).toBe('job:downloaded');
  });
});
