import { describe, expect, test } from 'vitest';
import { sandboxFor } from './helpers.js';

const SHORT = { aspect_ratio: '9x16', script: 'A lamp for late nights.', style: '3D' };
/** Longer than any AI Short's life at speed 100. */
const LIFE_MS = 10 * 60_000;

describe('the stats tell a resubmission from a duplicate', () => {
  test('a creation identical to one that ended failed is resubmitted, not a duplicate', async () => {
    const t = await sandboxFor({ speed: 100, faults: { rates: { jobFailure: 1 } } });
    expect((await t.post('/api/ai_shorts/', SHORT)).status).toBe(201);
    t.advance(LIFE_MS);
    expect(t.sandbox.jobs().map((j) => j.status)).toEqual(['failed']);
    await t.post('/api/ai_shorts/', { ...SHORT, webhook_url: 'http://127.0.0.1:9/hook' });
    expect(t.sandbox.stats()).toMatchObject({ duplicates: { total: 0 }, resubmitted: { total: 1, byKind: { ai_short: 1 } } });
  });

  test('a creation identical to one still under way (or made) is a duplicate', async () => {
    const t = await sandboxFor({ speed: 100 });
    await t.post('/api/ai_shorts/', SHORT);
    await t.post('/api/ai_shorts/', SHORT);
    t.advance(LIFE_MS);
    await t.post('/api/ai_shorts/', SHORT);
    expect(t.sandbox.stats()).toMatchObject({ duplicates: { total: 2, byKind: { ai_short: 2 } }, resubmitted: { total: 0 } });
  });

  test('a creation identical to a failed one and to one still under way is a duplicate', async () => {
    const t = await sandboxFor({ speed: 100, faults: { rates: { jobFailure: 1 } } });
    await t.post('/api/ai_shorts/', SHORT);
    t.advance(LIFE_MS);
    await t.post('/api/ai_shorts/', SHORT);
    await t.post('/api/ai_shorts/', SHORT);
    expect(t.sandbox.stats()).toMatchObject({ duplicates: { total: 1 }, resubmitted: { total: 1 } });
  });
});
