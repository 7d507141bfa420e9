import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { loadManifest } from '../../src/manifest/index.js';
import { planManifest, planStream } from '../../src/plan/index.js';
import { dependencies } from '../../src/run/dependencies.js';
import { Upstreams } from '../../src/run/upstreams.js';

const EXAMPLES = join(import.meta.dirname, '../../examples');
const demo = async () => loadManifest(join(EXAMPLES, 'demo.yaml'), { env: {}, cwd: EXAMPLES });

describe('what jobs wait for', () => {
  test('the demo: jobs that reference the product link wait for it', async () => {
    const plan = planManifest(await demo());
    const needs = dependencies(plan);
    const product = plan.jobs.filter((job) => job.step === 'product').map((job) => job.key);
    expect(product).toHaveLength(1);
    const waiting = plan.jobs.filter((job) => (needs.get(job.key) ?? []).length > 0);
    expect(waiting.length).toBeGreaterThan(0);
    for (const job of waiting) expect(needs.get(job.key)).toEqual(product);
  });

  test('a plan of one step needs no job', async () => {
    const plan = planManifest(await loadManifest(join(EXAMPLES, 'ai-short.yaml'), { env: {}, cwd: EXAMPLES }));
    expect(plan.jobs.length).toBeGreaterThan(1);
    // No entry at all: nothing per job is held for jobs that wait for none.
    expect(dependencies(plan).size).toBe(0);
  });
});

describe('a run waits on upstream jobs', () => {
  test('a job waits until every job it needs settled, and hears how the first that did not end well ended', async () => {
    const stream = planStream(await demo());
    const jobs = [...stream.jobs];
    const upstreams = new Upstreams(stream, stream.index);
    const product = jobs.find((job) => job.step === 'product')!;
    const waiting = jobs.filter((job) => upstreams.waits(job));
    expect(waiting.length).toBeGreaterThan(0);
    let heard: string | undefined;
    const first = upstreams.of(waiting[0]!).then((outcome) => (heard = outcome));
    await Promise.resolve();
    expect(heard).toBeUndefined();
    upstreams.settle(product.key, 'failed');
    // The first outcome stands: a later settling of the same job changes nothing.
    upstreams.settle(product.key, 'ok');
    await first;
    expect(heard).toBe('failed');
    expect(await upstreams.of(waiting.at(-1)!)).toBe('failed');
  });

  test('a job that needs nothing, or a job outside the plan, waits for nothing', async () => {
    const stream = planStream(await demo());
    const upstreams = new Upstreams(stream, stream.index);
    const free = [...stream.jobs].find((job) => !upstreams.waits(job))!;
    expect(await upstreams.of(free)).toBe('ok');
    expect(await upstreams.of({ ...free, refs: [{ placeholder: '{{ steps.x.id }}', jobKey: 'elsewhere:000000000000', field: 'id' }] })).toBe('ok');
  });

  test('on a shared run, a job another member drives settles there', async () => {
    const stream = planStream(await demo());
    const product = [...stream.jobs].find((job) => job.step === 'product')!;
    const upstreams = new Upstreams(stream, stream.index, (key) => (key === product.key ? Promise.resolve('unfinished') : null));
    const waiting = [...stream.jobs].find((job) => upstreams.waits(job))!;
    expect(await upstreams.of(waiting)).toBe('unfinished');
  });
});
