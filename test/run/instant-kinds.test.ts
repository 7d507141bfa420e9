import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { ServiceClient } from '../../src/api/index.js';
import { loadManifest } from '../../src/manifest/index.js';
import { planManifest, type ListedPlan } from '../../src/plan/index.js';
import { executePlan, type RunDeps } from '../../src/run/execute-plan.js';
import { resolveRunOptions } from '../../src/run/run-options.js';
import type { Store } from '../../src/state/index.js';
import type { ScriptedServer } from '../helpers/scripted-server.js';
import { eventsIn, useScriptedRun } from './helpers/scripted-run.js';

let dir: string;
let statePath: string;
let store: Store;
let server: ScriptedServer;
let client: ServiceClient;

useScriptedRun('reelpipe-instant-', (run) => ({ dir, statePath, store, server, client } = run));

const VOICE = `
version: 1
name: v
outputs: out
steps:
  - id: voice
    kind: voice_clone
    download: false
    estimate_credits: 5
    with: { original_audio_url: https://example.com/a.mp3, name: Narrator }
`;
const ACCENT = '11111111-2222-4333-8444-555555555555';
const ANSWER = { name: 'Narrator', accents: [{ id: ACCENT, accent_name: 'Narrator' }] };

async function planOf(yaml: string): Promise<ListedPlan> {
  writeFileSync(join(dir, 'm.yaml'), yaml);
  return planManifest(await loadManifest(join(dir, 'm.yaml'), { env: {}, cwd: dir }));
}

const run = (plan: ListedPlan, deps: Partial<RunDeps> = {}) =>
  executePlan(plan, { store, client, ...deps }, resolveRunOptions({ ratePerSecond: 1000, timeScale: 0.0001 }, { concurrency: 1, maxCredits: null }));

describe('a kind finished at creation whose answer could not be recorded', () => {
  test('the next run finishes it from the kept answer at its cost, sending nothing (a voice cannot be read)', async () => {
    const plan = await planOf(VOICE);
    const key = plan.jobs[0]!.key;
    server.script('POST', '/api/voices/', { status: 201, json: ANSWER });
    // Anything failing after the POST (a busy database, a listener) stands in for the kill hook.
    await run(plan, { kill: (point) => { if (point === 'after-post') throw new Error('disk went away'); } }).catch(() => undefined);
    expect(await store.job(key)).toMatchObject({ status: 'in_doubt', remoteId: ACCENT, result: ANSWER });

    const again = await run(plan);
    expect(again.counts).toEqual({ downloaded: 1 });
    expect(await store.job(key)).toMatchObject({ remoteId: ACCENT, result: ANSWER });
    expect(again.credits.spent).toBe(5);
    expect(server.requests).toHaveLength(1);
    // Adopted straight to done: it is never handed to the tracker as `submitted`.
    const moves = eventsIn(statePath, { jobKey: key }).flatMap((e) => (e.data?.to ? [e.data.to] : []));
    expect(moves).toEqual(['submitting', 'in_doubt', 'done', 'downloaded']);
  });

  test('an id kept by an older reelpipe without its answer: held in doubt with the reason, nothing sent', async () => {
    const plan = await planOf(VOICE);
    const job = plan.jobs[0]!;
    await store.syncPlan(plan.manifestId, [{ key: job.key, step: job.step, kind: job.kind, request: job.request, creditsEstimated: 5 }]);
    await store.recordIntent({ key: job.key, request: job.request, hookToken: null, pathId: null, creditsReserved: 5 });
    await store.write({ key: job.key, move: { to: 'in_doubt', change: { remoteId: ACCENT, doubtReason: 'answered, but recording the answer failed' }, type: 'job:in-doubt' } });
    const result = await run(plan);
    expect(result.heldInDoubt).toEqual([job.key]);
    expect(server.requests).toHaveLength(0);
    expect((await store.job(job.key))?.doubtReason).toMatch(/its answer was not kept, and voice_clone jobs cannot be read/);
  });
});

describe('the tracker never polls a kind it cannot read', () => {
  /** A voice left `submitted` by an older reelpipe (its recorded id adopted, its answer lost). */
  async function submittedVoice(plan: ListedPlan, result: Record<string, unknown> | null): Promise<string> {
    const job = plan.jobs[0]!;
    await store.syncPlan(plan.manifestId, [{ key: job.key, step: job.step, kind: job.kind, request: job.request, creditsEstimated: 5 }]);
    await store.recordIntent({ key: job.key, request: job.request, hookToken: null, pathId: null, creditsReserved: 5 });
    await store.write({ key: job.key, move: { to: 'submitted', change: { remoteId: ACCENT, result }, type: 'job:answered' } });
    return job.key;
  }

  test('with its answer on the row: done with that answer', async () => {
    const plan = await planOf(VOICE);
    const key = await submittedVoice(plan, ANSWER);
    expect((await run(plan)).counts).toEqual({ downloaded: 1 });
    expect(server.requests).toHaveLength(0);
    expect((await store.job(key))?.result).toEqual(ANSWER);
  });

  test('without it: failed with the reason, naming the remote id to check, and its reservation counted', async () => {
    const plan = await planOf(VOICE);
    const key = await submittedVoice(plan, null);
    const result = await run(plan);
    expect(result.counts).toEqual({ failed: 1 });
    expect(result.credits.spent).toBe(5);
    expect(server.requests).toHaveLength(0);
    expect((await store.job(key))?.failedReason).toMatch(new RegExp(`voice_clone jobs cannot be read, so ${ACCENT} cannot be tracked`));
  });
});
