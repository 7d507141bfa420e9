import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { loadManifest } from '../../src/manifest/index.js';
import { planManifest, type ListedPlan } from '../../src/plan/index.js';
import { executePlan } from '../../src/run/execute-plan.js';
import { runOutcome } from '../../src/run/outcome.js';
import { RunEvents } from '../../src/run/run-events.js';
import { resolveRunOptions, type RunOptions } from '../../src/run/run-options.js';
import { MAX_READ_FAILURES } from '../../src/run/track/read-failures.js';
import { openStore, type Store } from '../../src/state/index.js';
import { freePort } from '../helpers/free-port.js';
import { startScriptedServer } from '../helpers/scripted-server.js';
import { eventsIn } from './helpers/scripted-run.js';

let dir: string;
let store: Store;
const closers: (() => Promise<void> | void)[] = [];
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'reelpipe-bounded-'));
  store = await openStore(join(dir, 'state.db'));
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const ID = '11111111-2222-4333-8444-555555555555';

async function submittedShort(): Promise<ListedPlan> {
  writeFileSync(join(dir, 'm.yaml'), `
version: 1
name: one
outputs: out
steps:
  - id: s
    kind: ai_short
    with: { script: "Hello there.", style: 3D, aspect_ratio: 9x16 }
`);
  const plan = planManifest(await loadManifest(join(dir, 'm.yaml'), { env: {}, cwd: dir }));
  const job = plan.jobs[0]!;
  await store.syncPlan(plan.manifestId, [{ key: job.key, step: job.step, kind: job.kind, request: job.request, creditsEstimated: 5 }]);
  // As an earlier run left it: sent, answered, still rendering.
  await store.write({ key: job.key, move: { to: 'submitting', change: {}, type: 'job:intent' } });
  await store.write({ key: job.key, move: { to: 'submitted', change: { remoteId: ID, submittedAt: Date.now() }, type: 'job:answered' } });
  return plan;
}

const run = (plan: ListedPlan, url: string, events: RunEvents, extra: RunOptions = {}) => {
  const client = createClient({ baseUrl: url, apiId: 'test-id', apiKey: 'test-key', retry: { maxAttempts: 1 } });
  closers.push(() => client.close());
  return executePlan(plan, { store, client, events }, resolveRunOptions({ ratePerSecond: 1000, timeScale: 0.0001, ...extra }, { concurrency: 1, maxCredits: null }));
};

describe('reads of a tracked job that keep failing', () => {
  test('are said at once, retried with a growing wait, and given up after a bound: the job is left for the next run (exit 4)', async () => {
    const plan = await submittedShort();
    const server = await startScriptedServer();
    closers.push(() => server.close());
    const html = { status: 200, text: '<html>gateway page</html>', headers: { 'content-type': 'text/html' } };
    server.script('GET', '/api/ai_shorts/', ...Array.from({ length: 20 }, () => ({ status: 502, json: { detail: 'bad gateway' } })));
    server.script('GET', `/api/ai_shorts/${ID}/`, ...Array.from({ length: 20 }, () => html));
    const events = new RunEvents();
    const said: string[] = [];
    events.on('job:read-failed', (e) => said.push(`${e.giveUp ? 'give up' : 'warn'}: ${e.message}`));

    const result = await run(plan, server.url, events);

    expect(server.requestsTo('GET', `/api/ai_shorts/${ID}/`)).toHaveLength(MAX_READ_FAILURES);
    expect(said).toHaveLength(2);
    expect(said[0]).toMatch(/^warn: reading it failed \(.*\); reading again with a growing wait$/);
    expect(said[1]).toMatch(/^give up: 6 reads in a row failed .*the next run reads it again$/);
    expect(eventsIn(join(dir, 'state.db'), { type: 'job:read-failed' })).toHaveLength(2);
    expect((await store.job(plan.jobs[0]!.key))?.status).toBe('submitted');
    expect(runOutcome(result, 'm.yaml')?.code).toBe('UNFINISHED');
  });
});

describe('a service that gives no answer at all', () => {
  test('stops the run after a bound, with exit 4 and the reason, instead of retrying forever', async () => {
    const plan = await submittedShort();
    // A port nobody listens on: every request is refused.
    const port = await freePort();
    const events = new RunEvents();

    const result = await run(plan, `http://127.0.0.1:${port}`, events, { unreachableAfterMs: 30 });

    expect(result.stop).toBe('unreachable');
    const error = runOutcome(result, 'm.yaml');
    expect(error?.code).toBe('UNFINISHED');
    expect(error?.message).toMatch(/the service gave no answer for \d+ s \(last: .*could not connect.*\); 1 job left \(1 still rendering at the service\): the next run carries on/);
  });
});
