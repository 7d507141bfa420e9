import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { loadManifest } from '../../src/manifest/index.js';
import { planManifest } from '../../src/plan/index.js';
import { dependencies, neededJobs } from '../../src/run/dependencies.js';

const EXAMPLES = join(import.meta.dirname, '../../examples');

describe('what jobs wait for', () => {
  test('the demo: jobs that reference the product link wait for it, and only the jobs waited for are needed', async () => {
    const plan = planManifest(await loadManifest(join(EXAMPLES, 'demo.yaml'), { env: {}, cwd: EXAMPLES }));
    const needs = dependencies(plan);
    const product = plan.jobs.filter((job) => job.step === 'product').map((job) => job.key);
    expect(product).toHaveLength(1);
    const waiting = plan.jobs.filter((job) => (needs.get(job.key) ?? []).length > 0);
    expect(waiting.length).toBeGreaterThan(0);
    for (const job of waiting) expect(needs.get(job.key)).toEqual(product);
    expect([...neededJobs(needs)]).toEqual(product);
  });

  test('a plan of one step needs no job', async () => {
    const plan = planManifest(await loadManifest(join(EXAMPLES, 'ai-short.yaml'), { env: {}, cwd: EXAMPLES }));
    expect(plan.jobs.length).toBeGreaterThan(1);
    const needs = dependencies(plan);
    expect(neededJobs(needs).size).toBe(0);
    // No entry at all: nothing per job is held for jobs that wait for none.
    expect(needs.size).toBe(0);
  });
});
