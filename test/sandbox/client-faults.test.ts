import { afterEach, describe, expect, test } from 'vitest';
import { ApiInDoubtError, createClient, type ServiceClient } from '../../src/api/index.js';
import type { FaultName } from '../../src/sandbox/index.js';
import { sandboxFor, type TestSandbox } from './helpers.js';

/**
 * The real service client (src/api) against the sandbox's faults, one fault at a time: what the
 * client decides (in doubt, wait and resend) must match what the sandbox really did (how many
 * jobs exist). A resent creation that made two jobs would pay twice on the live service.
 */
const SHORT = { aspect_ratio: '9x16', script: 'A lamp for late nights.', style: 'Cinematic' } as const;
const RETRY_AFTER_SECONDS = 2;

let client: ServiceClient | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
});

/** A sandbox with one fault at `rate`, and a client whose waits are recorded instead of slept. */
async function setUp(fault: FaultName, rate: number, seed = 1): Promise<{ t: TestSandbox; waits: number[] }> {
  const t = await sandboxFor({ seed, faults: { rates: { [fault]: rate }, retryAfterSeconds: RETRY_AFTER_SECONDS } });
  const waits: number[] = [];
  client = createClient({
    baseUrl: t.sandbox.url, apiId: 'faults-id', apiKey: 'faults-key', retry: { maxAttempts: 10 },
    sleep: async (ms) => void waits.push(ms), random: () => 0.5,
  });
  return { t, waits };
}

const shortsMade = (t: TestSandbox) => t.sandbox.jobs().filter((j) => j.kind === 'ai_short');

describe('a creation whose answer is lost is in doubt, and the job it made is real', () => {
  test.each(['errorAfterCreate', 'resetAfterCreate'] as const)('%s → ApiInDoubtError, never resent, exactly one job', async (fault) => {
    const { t, waits } = await setUp(fault, 1);
    await expect(client!.aiShorts.create(SHORT)).rejects.toBeInstanceOf(ApiInDoubtError);
    expect(waits).toEqual([]);
    expect(shortsMade(t)).toHaveLength(1);
    expect(t.sandbox.stats().requests['POST /api/ai_shorts/']).toBe(1);
    expect(t.sandbox.stats().faults[fault]).toBe(1);
  });
});

describe('a creation turned away before processing is waited for and resent, making one job', () => {
  test.each(['rateLimit', 'unavailable'] as const)('%s at rate 0.5 → waits Retry-After each time, then one job', async (fault) => {
    // Seed 6 turns the first attempt away (twice under unavailable); the draws are reproducible by seed.
    const { t, waits } = await setUp(fault, 0.5, 6);
    const made = await client!.aiShorts.create(SHORT);
    const turnedAway = t.sandbox.stats().faults[fault] ?? 0;
    expect(turnedAway).toBeGreaterThan(0);
    expect(waits).toEqual(Array.from({ length: turnedAway }, () => RETRY_AFTER_SECONDS * 1000));
    expect(t.sandbox.stats().requests['POST /api/ai_shorts/']).toBe(turnedAway + 1);
    expect(shortsMade(t).map((j) => j.id)).toEqual([made.id]);
    expect(t.sandbox.stats().duplicates.total).toBe(0);
  });

  test('rateLimit at rate 1 exhausts the attempts and creates nothing', async () => {
    const { t, waits } = await setUp('rateLimit', 1);
    await expect(client!.aiShorts.create(SHORT)).rejects.toMatchObject({ status: 429 });
    expect(waits).toHaveLength(9);
    expect(shortsMade(t)).toEqual([]);
  });
});
