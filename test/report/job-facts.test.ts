import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { planManifest, type ListedPlan } from '../../src/plan/index.js';
import { readJobFacts } from '../../src/report/job-facts.js';
import { toNewJobs } from '../../src/run/execute-plan.js';
import { openStore, type JobState } from '../../src/state/index.js';
import { allStates } from '../state/conformance/harness.js';
import { ManualClock } from '../../src/util/clock.js';
import { load, manifestWith } from '../manifest/helpers/temp-tree.js';

/** Two shorts, A and B, of the scripts given: editing one changes its job's key, not its place. */
const planOf = async (a: string, b: string) => {
  const rows = [{ sku: 'A', script: a }, { sku: 'B', script: b }];
  return planManifest(await load({ 'manifest.yaml': manifestWith([{ id: 'shorts', kind: 'ai_short', name: 'short-{{ row.sku }}', for_each: { rows }, with: { script: '{{ row.script }}', style: '3D', aspect_ratio: '9x16' } }]) }));
};

/** A state where the plan's jobs were recorded and A's finished at a cost of 5; the store to record more with. */
async function recorded(plan: ListedPlan) {
  const statePath = join(plan.outputsDir, '..', 'state', 'reelpipe.db');
  const store = (await openStore(statePath, new ManualClock(Date.UTC(2026, 10, 27)))).useManifest(plan.manifestId);
  await store.syncPlan(plan.manifestId, toNewJobs(plan));
  const a = plan.jobs[0]!;
  await store.recordIntent({ key: a.key, request: a.request, hookToken: null, pathId: null, creditsReserved: 5 });
  await store.write({ key: a.key, move: { to: 'submitted', change: { remoteId: 'r-a' }, type: 'job:answered' } });
  await store.write({ key: a.key, move: { to: 'done', change: { creditsUsed: 5, result: {} }, type: 'job:done' } });
  return { statePath, store };
}

const states = async (statePath: string, plan: ListedPlan, rows?: readonly JobState[]) => {
  const { facts } = await readJobFacts(statePath, plan, { rows });
  return plan.jobs.map((job) => [job.label, facts.get(job.key)?.state, facts.get(job.key)?.history.map((v) => [v.key, v.creditsUsed])]);
};

describe('the facts of an edited row', () => {
  test('before a run records it, its job is changed; once recorded, its earlier version is its history, however the rows are had', async () => {
    const before = await planOf('One.', 'Two.');
    const { statePath, store } = await recorded(before);
    try {
      const oldKey = before.jobs[0]!.key;
      // The same rows, A's script edited: a new key in A's place.
      const after = await planOf('One, edited.', 'Two.');
      expect([after.manifestId, after.jobs[1]!.key]).toEqual([before.manifestId, before.jobs[1]!.key]);
      expect(after.jobs[0]!.key).not.toBe(oldKey);
      expect(await states(statePath, before)).toEqual([['short-A', 'finished', []], ['short-B', 'not submitted', []]]);
      expect(await states(statePath, after)).toEqual([['short-A', 'changed', []], ['short-B', 'not submitted', []]]);
      await store.syncPlan(after.manifestId, toNewJobs(after));
      const history = [['short-A', 'not submitted', [[oldKey, 5]]], ['short-B', 'not submitted', []]];
      expect(await states(statePath, after)).toEqual(history);
      // A run's end hands its rows over (every job of the plan): the earlier version is read all the same.
      expect(await states(statePath, after, await allStates(store))).toEqual(history);
    } finally {
      await store.close();
    }
  });
});
