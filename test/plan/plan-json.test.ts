import { describe, expect, test } from 'vitest';
import { planJsonChunks, planManifest, planToJson, type RecordOf } from '../../src/plan/index.js';
import { load, manifestWith } from '../manifest/helpers/temp-tree.js';

/** `plan --json` is written job by job, and reads exactly as the plan serialised in one go. */
const link = { id: 'product', kind: 'link', with: { url: 'https://example.com/p' } };
const clone = { id: 'clone', kind: 'ad_clone', matrix: { language: ['de', 'fr'] }, with: { link: '{{ steps.product.id }}', video_url: 'https://example.com/ad.mp4', language: '{{ matrix.language }}' } };
const regen = { id: 'regen', kind: 'product_regen', with: { id: '123e4567-e89b-12d3-a456-426614174000', video_prompt: 'slower' } };
const planOf = async (steps: object[]) => planManifest(await load({ 'manifest.yaml': manifestWith(steps) }));
const whole = (plan: Parameters<typeof planToJson>[0], recordOf?: RecordOf) => `${JSON.stringify(planToJson(plan, recordOf), null, 2)}\n`;

describe('the streamed JSON plan', () => {
  test.each([
    ['references, matrix and path ids', [link, clone, regen]],
    ['a step without jobs', [{ ...link, for_each: { rows: [] }, with: { url: '{{ row.url }}' } }]],
  ])('with %s, is the same text as JSON.stringify of the plan', async (_, steps) => {
    const plan = await planOf(steps);
    const done = { state: 'done' as const, status: 'downloaded', remoteId: 'r-1', creditsUsed: 84, submittedAt: 1, finishedAt: 2, downloadedAt: 3, outputs: [{ path: 'clone/a.mp4' }] };
    const status: RecordOf = (key) => (key.startsWith('clone') ? done : undefined);
    expect([...planJsonChunks(plan, status)].join('')).toBe(whole(plan, status));
  });

  test('a big plan comes in many bounded chunks, never as one string', async () => {
    const rows = Array.from({ length: 2000 }, (_, i) => ({ url: `https://example.com/p/${i}` }));
    const plan = await planOf([{ ...link, for_each: { rows }, with: { url: '{{ row.url }}' } }]);
    const chunks = [...planJsonChunks(plan)];
    expect(chunks.join('')).toBe(whole(plan));
    expect(chunks.length).toBeGreaterThan(5);
    expect(Math.max(...chunks.map((c) => c.length))).toBeLessThan(70 * 1024);
  });
});
