import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createClient, type ServiceClient } from '../../src/api/index.js';
import { loadManifest } from '../../src/manifest/index.js';
import { planManifest, type ListedPlan } from '../../src/plan/index.js';
import { stoppingText } from '../../src/report/progress/lines.js';
import { executePlan } from '../../src/run/execute-plan.js';
import type { KillHook, KillPoint } from '../../src/run/kill-hook.js';
import { RunEvents } from '../../src/run/run-events.js';
import { resolveRunOptions } from '../../src/run/run-options.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { openStore, type Store } from '../../src/state/index.js';

let dir: string;
let store: Store;
let sandbox: Sandbox;
let client: ServiceClient;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'reelpipe-alone-'));
  store = await openStore(join(dir, 'state.db'));
  sandbox = await startSandbox({ port: 0, speed: 2000, seed: 5, credits: 100_000 });
  client = createClient({ baseUrl: sandbox.url, apiId: 'test-id', apiKey: 'test-key' });
});
afterEach(async () => {
  await client.close();
  await sandbox.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const THREE = `
version: 1
name: three
outputs: out
concurrency: 3
steps:
  - id: s
    kind: ai_short
    for_each: { rows: [{ t: "One small step." }, { t: "Two more steps." }, { t: "Three and done." }] }
    with: { script: "{{ row.t }}", style: 3D, aspect_ratio: 9x16 }
`;

async function planOf(yaml: string): Promise<ListedPlan> {
  writeFileSync(join(dir, 'm.yaml'), yaml);
  return planManifest(await loadManifest(join(dir, 'm.yaml'), { env: {}, cwd: dir }));
}

/** Throws (a bug, not a kill; with `code`, a fault of the machine) the first time the run reaches `point`. */
function throwOnce(point: KillPoint, code?: string): KillHook {
  let fired = false;
  return (p) => {
    if (p !== point || fired) return;
    fired = true;
    throw Object.assign(new Error(`boom at ${p}`), code ? { code } : {});
  };
}

const run = (plan: ListedPlan, kill?: KillHook) =>
  executePlan(plan, { store, client, ...(kill ? { kill } : {}) }, resolveRunOptions({ ratePerSecond: 1000, timeScale: 1 / 2000 }, { concurrency: 3, maxCredits: null }));

describe('an unexpected error ends only its own job', () => {
  test('after its POST: the other jobs finish, the job is in doubt with the reason and its remote id kept; the next run adopts it', async () => {
    const plan = await planOf(THREE);
    const first = await run(plan, throwOnce('after-post'));
    expect(first.counts).toEqual({ downloaded: 2, in_doubt: 1 });
    const [held] = await store.jobsWithStatus(['in_doubt']);
    expect(held?.remoteId).toMatch(/\w/);
    expect(held?.doubtReason).toMatch(/recording the answer failed: boom at after-post/);
    expect(await store.lastAttempt(held!.key)).toMatchObject({ state: 'answered', remoteId: held!.remoteId });
    expect(first.heldInDoubt).toEqual([held!.key]);

    const second = await run(plan);
    expect(second.counts).toEqual({ downloaded: 3 });
    expect(sandbox.stats().created.ai_short).toBe(3);
    expect(sandbox.stats().duplicates.total).toBe(0);
  });

  test('before its POST: nothing was sent, so the job is planned again (not in doubt) and the next run sends it once', async () => {
    const plan = await planOf(THREE);
    const first = await run(plan, throwOnce('before-post'));
    expect(first.counts).toEqual({ downloaded: 2, planned: 1 });
    const [planned] = await store.jobsWithStatus(['planned']);
    expect(await store.lastAttempt(planned!.key)).toMatchObject({ state: 'not_sent', error: expect.stringMatching(/boom at before-post/) });
    const second = await run(plan);
    expect(second.counts).toEqual({ downloaded: 3 });
    expect(sandbox.stats().created.ai_short).toBe(3);
  });

  test('a fault of the machine stops the whole run instead, said as a person would: "stopping: a local fault: …", "stopping" once', async () => {
    const plan = await planOf(THREE);
    const events = new RunEvents();
    const said: string[] = [];
    events.on('run:stopping', (e) => said.push(stoppingText(e)));
    const options = resolveRunOptions({ ratePerSecond: 1000, timeScale: 1 / 2000 }, { concurrency: 3, maxCredits: null });
    const result = await executePlan(plan, { store, client, events, kill: throwOnce('before-post', 'ENOSPC') }, options);
    expect(result.stop).toBe('local-fault');
    expect(said).toEqual(['stopping: a local fault: boom at before-post']);
    // The run's end names it as what stopped the run.
    expect(result.stopMessage).toBe('a local fault stopped the run: boom at before-post');
  });
});
