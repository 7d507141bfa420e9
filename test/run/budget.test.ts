import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { ServiceClient } from '../../src/api/index.js';
import { loadManifest } from '../../src/manifest/index.js';
import { planManifest, type Plan } from '../../src/plan/index.js';
import { executePlan } from '../../src/run/execute-plan.js';
import { runOutcome } from '../../src/run/outcome.js';
import { resolveRunOptions } from '../../src/run/run-options.js';
import type { Store } from '../../src/state/index.js';
import type { ScriptedServer } from '../helpers/scripted-server.js';
import { useScriptedRun } from './helpers/scripted-run.js';

let dir: string;
let store: Store;
let server: ScriptedServer;
let client: ServiceClient;

useScriptedRun('reelpipe-budget-', (run) => ({ dir, store, server, client } = run));

/** Two AI Shorts, one at a time; a short script is priced at 5 credits (its reservation). */
const TWO = `
version: 1
name: two
outputs: out
concurrency: 1
steps:
  - id: s
    kind: ai_short
    for_each: { rows: [{ t: "First one." }, { t: "Second one." }] }
    with: { script: "{{ row.t }}", style: 3D, aspect_ratio: 9x16 }
`;
const ID = '11111111-2222-4333-8444-555555555555';
const ID2 = '22222222-2222-4333-8444-555555555555';

async function runUnderCap(cap: number, finished: Record<string, unknown>, more: () => void = () => undefined) {
  writeFileSync(join(dir, 'm.yaml'), TWO);
  const plan: Plan = planManifest(await loadManifest(join(dir, 'm.yaml'), { env: {}, cwd: dir }));
  server.script('POST', '/api/ai_shorts/', { status: 201, json: { id: ID, status: 'pending' } });
  server.script('GET', '/api/ai_shorts/', { status: 200, json: [{ id: ID, status: 'done', video_output: `${server.url}/v.mp4`, ...finished }] });
  server.script('GET', '/v.mp4', { status: 200, text: 'MP4', headers: { 'content-type': 'video/mp4' } });
  more();
  const result = await executePlan(plan, { store, client }, resolveRunOptions({ ratePerSecond: 1000, timeScale: 0.0001, maxCredits: cap }, { concurrency: 1, maxCredits: null }));
  return { result, error: runOutcome(result, 'm.yaml') };
}

describe('the budget at run time', () => {
  test('a cost the service does not report counts as its reservation, not 0: the next job no longer fits', async () => {
    const { result, error } = await runUnderCap(8, {});
    expect(server.requestsTo('POST', '/api/ai_shorts/')).toHaveLength(1);
    expect(result.counts).toEqual({ downloaded: 1, planned: 1 });
    expect(result.credits.spent).toBe(5);
    expect(error?.code).toBe('BUDGET_EXCEEDED');
    expect(error?.message).toMatch(/^the credit cap stopped submitting: 5 counted against the cap of 8 \(used unknown: a cost not reported counts at its high estimate\); when it stopped, .+? · Second one\. \(s:\w+\) was not submitted: its high estimate of 5 could pass the cap \(at that moment 5 counted against the cap of 8 and 0 held for jobs in flight\)/);
  });

  test('a real cost above the estimate is counted in full, stops submitting at once, and the message says the cap was passed', async () => {
    const { result, error } = await runUnderCap(12, { credits_used: 15 });
    expect(server.requestsTo('POST', '/api/ai_shorts/')).toHaveLength(1);
    expect(result.credits).toMatchObject({ spent: 15, cap: 12, overruns: [{ used: 15, reserved: 5 }] });
    expect(error?.message).toMatch(/^the credit cap stopped submitting: 15 counted against the cap of 12 — PAST the cap by 3 because real costs exceeded their high estimates: .+? · First one\. \(s:\w+\): charged 15, high estimate 5/);
    expect(error?.message).not.toMatch(/stays under/);
  });

  test('within its estimate, the job\'s real cost replaces the reservation and the next job is sent', async () => {
    const { result, error } = await runUnderCap(10, { credits_used: 4 }, () => {
      server.script('POST', '/api/ai_shorts/', { status: 201, json: { id: ID2, status: 'pending' } });
      server.script('GET', '/api/ai_shorts/', { status: 200, json: [{ id: ID2, status: 'done', credits_used: 4, video_output: `${server.url}/w.mp4` }] });
      server.script('GET', '/w.mp4', { status: 200, text: 'MP4', headers: { 'content-type': 'video/mp4' } });
    });
    expect(error).toBeUndefined();
    expect(result.credits).toMatchObject({ spent: 8, overruns: [] });
  });
});
