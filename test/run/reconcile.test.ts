import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { ServiceClient } from '../../src/api/index.js';
import { loadManifest } from '../../src/manifest/index.js';
import { planManifest, type ListedPlan, type PlannedJob } from '../../src/plan/index.js';
import { executePlan } from '../../src/run/execute-plan.js';
import { resolveRunOptions, type RunOptions } from '../../src/run/run-options.js';
import { UnfinishedError } from '../../src/errors.js';
import { MAX_ABSENT_RESUBMITS } from '../../src/run/drive-job.js';
import { runOutcome } from '../../src/run/outcome.js';
import type { Store } from '../../src/state/index.js';
import type { ScriptedServer } from '../helpers/scripted-server.js';
import { eventsIn, useScriptedRun } from './helpers/scripted-run.js';

let dir: string;
let statePath: string;
let store: Store;
let server: ScriptedServer;
let client: ServiceClient;

useScriptedRun('reelpipe-reconcile-', (run) => ({ dir, statePath, store, server, client } = run));

export const LIPSYNC = `
version: 1
name: talk
outputs: out
steps:
  - id: talk
    kind: lipsync_v2
    with:
      video_inputs:
        - character: { type: avatar, avatar_id: 5eed0000-0000-4000-8000-000000000101 }
          voice: { type: text, input_text: "Hello from the trail." }
`;
const OLD = 'aaaaaaaa-0000-4000-8000-000000000001';
const NEW = 'bbbbbbbb-0000-4000-8000-000000000002';

async function planOf(yaml: string): Promise<ListedPlan> {
  writeFileSync(join(dir, 'm.yaml'), yaml);
  return planManifest(await loadManifest(join(dir, 'm.yaml'), { env: {}, cwd: dir }));
}

const run = (plan: ListedPlan, extra: RunOptions = {}) =>
  executePlan(plan, { store, client }, resolveRunOptions({ ratePerSecond: 1000, timeScale: 0.0001, ...extra }, { concurrency: 1, maxCredits: null }));

/** As an earlier run leaves it: the intent committed, the POST's answer never recorded. */
async function crashMidPost(job: PlannedJob): Promise<void> {
  await store.recordIntent({ key: job.key, request: job.request, hookToken: null, pathId: job.pathId ?? null, creditsReserved: 0 });
}

describe('reconciling an in-doubt job', () => {
  test('after retry, the job\'s own old (failed) remote job is never adopted: absent, resubmitted once', async () => {
    const plan = await planOf(LIPSYNC);
    const job = plan.jobs[0]!;
    await store.syncPlan(plan.manifestId, [{ key: job.key, step: job.step, kind: job.kind, request: job.request, creditsEstimated: 1 }]);
    // Its first life: submitted, answered with OLD, failed remotely; then `reelpipe retry`.
    const first = await store.recordIntent({ key: job.key, request: job.request, hookToken: null, pathId: null, creditsReserved: 0 });
    await store.write({ key: job.key, attempt: { id: first, state: 'answered', remoteId: OLD }, move: { to: 'submitted', change: { remoteId: OLD }, type: 'job:answered' } });
    await store.write({ key: job.key, move: { to: 'failed', change: { failedReason: 'render failed' }, type: 'job:failed' } });
    await store.planAgain([job.key], ['failed']);
    await crashMidPost(job);

    const now = new Date().toISOString();
    // The window's list shows only the old, failed job: same request, same minute.
    server.script('GET', '/api/lipsyncs_v2/', { status: 200, json: [{ ...job.request, id: OLD, status: 'failed', created_at: now }] },
      { status: 200, json: [{ ...job.request, id: NEW, status: 'done', output: `${server.url}/new.mp4`, created_at: now }] });
    server.script('POST', '/api/lipsyncs_v2/', { status: 201, json: { ...job.request, id: NEW, status: 'pending', created_at: now } });
    server.script('GET', '/new.mp4', { status: 200, text: 'MP4', headers: { 'content-type': 'video/mp4' } });
    const result = await run(plan, { inDoubtSettleMs: 0 });

    expect(result.counts).toEqual({ downloaded: 1 });
    expect((await store.job(job.key))?.remoteId).toBe(NEW);
    expect((await store.attempts(job.key)).map((a) => a.state)).toEqual(['answered', 'absent', 'answered']);
    expect(server.requestsTo('POST', '/api/lipsyncs_v2/')).toHaveLength(1);
  });
});

describe('a list that cannot be read does not hold the run forever', () => {
  test.each([
    ['a 4xx refusal holds the job at once', [{ status: 400, json: { detail: 'created_after: Enter a valid date/time.' } }], 1, /list was refused.*valid date/],
    ['five failures in a row hold it', Array.from({ length: 5 }, () => ({ status: 500, json: { detail: 'Server Error' } })), 5, /list failed 5 times in a row/],
  ])('%s, with the reason, and nothing is resent', async (_case, replies, lists, reason) => {
    const plan = await planOf(LIPSYNC);
    const job = plan.jobs[0]!;
    await store.syncPlan(plan.manifestId, [{ key: job.key, step: job.step, kind: job.kind, request: job.request, creditsEstimated: 1 }]);
    await crashMidPost(job);
    server.script('GET', '/api/lipsyncs_v2/', ...replies);
    const result = await run(plan, { inDoubtSettleMs: 0 });
    expect(result.heldInDoubt).toEqual([job.key]);
    expect(await store.job(job.key)).toMatchObject({ status: 'in_doubt', doubtReason: expect.stringMatching(reason) });
    expect(server.requestsTo('GET', '/api/lipsyncs_v2/')).toHaveLength(lists);
    expect(server.requestsTo('POST', '/api/lipsyncs_v2/')).toEqual([]);
  });
});

describe('a creation the service keeps failing does not loop within one run', () => {
  test('after 3 POSTs answered 502 and proved absent, the job is left planned for the next run (exit 4), with the reason', async () => {
    const plan = await planOf(LIPSYNC);
    const key = plan.jobs[0]!.key;
    server.script('POST', '/api/lipsyncs_v2/', ...Array.from({ length: 12 }, () => ({ status: 502, json: { detail: 'Bad gateway' } })));
    server.script('GET', '/api/lipsyncs_v2/', ...Array.from({ length: 12 }, () => ({ status: 200, json: [] })));
    const result = await run(plan, { inDoubtSettleMs: 0 });
    expect(server.requestsTo('POST', '/api/lipsyncs_v2/')).toHaveLength(MAX_ABSENT_RESUBMITS);
    expect(result.counts).toEqual({ planned: 1 });
    expect(runOutcome(result, 'm.yaml')?.code).toBe(new UnfinishedError('x').code);
    expect((await store.attempts(key)).map((a) => a.state)).toEqual(['absent', 'absent', 'absent']);
    const deferred = eventsIn(statePath, { jobKey: key, type: 'job:not-created' }).at(-1);
    expect(deferred?.data?.message).toMatch(/3 creating requests in a row got no usable answer and created nothing/);
  });
});

describe('a persona deletion and a 404', () => {
  const PERSONA = '0b9f6a1e-2c3d-4e5f-8a7b-6c5d4e3f2a1b';
  const DELETE = `
version: 1
name: retire
outputs: out
steps:
  - id: retire
    kind: persona_delete
    download: false
    with: { id: ${PERSONA} }
`;
  const notFound = { status: 404, json: { detail: 'Not found.' } };

  test('resent after a crash mid-DELETE, a 404 means the earlier DELETE did it: done', async () => {
    const plan = await planOf(DELETE);
    const job = plan.jobs[0]!;
    await store.syncPlan(plan.manifestId, [{ key: job.key, step: job.step, kind: job.kind, request: job.request, pathId: PERSONA, creditsEstimated: 0 }]);
    await crashMidPost(job);
    server.script('DELETE', `/api/personas/${PERSONA}/`, notFound);
    const result = await run(plan);
    expect(result.counts).toEqual({ downloaded: 1 });
    expect((await store.attempts(job.key)).map((a) => a.state)).toEqual(['absent', 'answered']);
  });

  test('a first attempt\'s 404 is a wrong id: the job fails with the service\'s message', async () => {
    const plan = await planOf(DELETE);
    server.script('DELETE', `/api/personas/${PERSONA}/`, notFound);
    const result = await run(plan);
    expect(result.counts).toEqual({ rejected: 1 });
    expect((await store.job(plan.jobs[0]!.key))?.failedReason).toMatch(/Not found/);
  });
});
