import { describe, expect, test } from 'vitest';
import { planManifest, resolveJob, UnresolvedReferenceError, type PlannedJob } from '../../src/plan/index.js';
import { load, manifestWith } from '../manifest/helpers/temp-tree.js';

/** References between steps: bound at plan time to a job key, substituted by the runner. */
const UUID = '123e4567-e89b-12d3-a456-426614174000';
const product = { id: 'product', kind: 'link_with_params', with: { title: 'Trail Runner 2', image_urls: ['https://example.com/tr2.jpg'] } };
const clones = {
  id: 'clones',
  kind: 'ad_clone',
  matrix: { language: ['de', 'fr'] },
  with: { link: '{{ steps.product.id }}', video_url: 'https://example.com/ad.mp4', language: '{{ matrix.language }}' },
};

const plan = async (steps: object[]) => planManifest(await load({ 'manifest.yaml': manifestWith(steps) }));

describe('binding', () => {
  test('{{ steps.ID.FIELD }} binds to the single job of ID, which is planned first whatever the manifest order', async () => {
    const p = await plan([clones, product]);
    const link = p.jobs.find((j) => j.step === 'product') as PlannedJob;
    expect(p.steps.map((s) => [s.id, s.needs])).toEqual([['product', []], ['clones', ['product']]]);
    expect(p.jobs.map((j) => j.step)).toEqual(['product', 'clones', 'clones']);
    expect(p.jobs[1]?.refs).toEqual([{ placeholder: '{{ steps.product.id }}', jobKey: link.key, field: 'id' }]);
    expect(p.jobs[1]?.request.link).toBe('{{ steps.product.id }}');
  });

  test('for_each: { step } makes one job per upstream job, each bound to its own', async () => {
    const html = { id: 'ads', kind: 'html_ads', for_each: { step: 'clones' }, with: { link: UUID, style_ids: ['quiz-3q'], promotion_info: 'Clone {{ item.id }}' } };
    const p = await plan([product, clones, html]);
    const upstream = p.jobs.filter((j) => j.step === 'clones').map((j) => j.key);
    const ads = p.jobs.filter((j) => j.step === 'ads');
    expect(ads.map((j) => j.refs[0]?.jobKey)).toEqual(upstream);
    expect(new Set(ads.map((j) => j.key)).size).toBe(2);
  });

  test('explicit needs order steps without references', async () => {
    const first = { id: 'first', kind: 'link', with: { url: 'https://example.com/a' } };
    const second = { id: 'second', kind: 'link', needs: ['first'], with: { url: 'https://example.com/b' } };
    expect((await plan([second, first])).steps.map((s) => s.id)).toEqual(['first', 'second']);
  });

  test('a reference changes the key of the job that holds it when the upstream job changes', async () => {
    const before = await plan([product, clones]);
    const after = await plan([{ ...product, with: { ...product.with, title: 'Trail Runner 3' } }, clones]);
    expect(after.jobs[1]?.key).not.toBe(before.jobs[1]?.key);
  });
});

describe('resolveJob', () => {
  const job = (request: Record<string, unknown>, pathId?: string): PlannedJob => ({
    key: 'down:000000000000',
    step: 'down',
    label: 'down',
    kind: 'ad_clone',
    request,
    ...(pathId ? { pathId } : {}),
    refs: [
      { placeholder: '{{ steps.product.id }}', jobKey: 'product:aaa', field: 'id' },
      { placeholder: '{{ item.accents.0.id }}', jobKey: 'voice:bbb', field: 'accents.0.id' },
    ],
    credits: null,
    outputName: 'down',
    download: true,
    priority: 0,
  });
  const results: Record<string, Record<string, unknown>> = {
    'product:aaa': { id: UUID, title: 'T' },
    'voice:bbb': { accents: [{ id: 'acc-1' }] },
  };

  test('substitutes whole values (keeping their type) and text, without touching the plan', () => {
    const original = job({ link: '{{ steps.product.id }}', nested: { a: ['x {{ item.accents.0.id }} y'] } }, '{{ steps.product.id }}');
    const resolved = resolveJob(original, (key) => results[key]);
    expect(resolved).toEqual({ request: { link: UUID, nested: { a: ['x acc-1 y'] } }, pathId: UUID });
    expect(original.request.link).toBe('{{ steps.product.id }}');
  });

  test('a job without references is returned as planned', () => {
    const plain: PlannedJob = { ...job({ a: 1 }), refs: [] };
    expect(resolveJob(plain, () => undefined)).toEqual({ request: { a: 1 } });
  });

  test.each([
    ['an upstream job with no result yet', {}, 'result', 'job down:000000000000 needs the result of job product:aaa for {{ steps.product.id }}, and there is none yet'],
    ['a result without the field', { 'product:aaa': { title: 'T' }, 'voice:bbb': results['voice:bbb'] }, 'field', 'job down:000000000000: {{ steps.product.id }} is empty in the result of job product:aaa'],
  ] as const)('throws for %s', (_, known, missing, message) => {
    const run = () => resolveJob(job({ link: '{{ steps.product.id }}' }), (key) => (known as Record<string, Record<string, unknown>>)[key]);
    expect(run).toThrow(UnresolvedReferenceError);
    expect(run).toThrow(message);
    try {
      run();
    } catch (error) {
      expect((error as UnresolvedReferenceError).missing).toBe(missing);
    }
  });
});
