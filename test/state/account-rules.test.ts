import { describe, expect, test } from 'vitest';
import { judgeAsks, NO_LIMITS, periodStart, slotLifeMs } from '../../src/state/account-rules.js';

const at = (iso: string) => Date.parse(iso);

describe('the periods of the account cap, in UTC', () => {
  test('a day starts at midnight UTC, a month on its first, and no period counts every charge', () => {
    expect(periodStart('day', at('2026-11-27T23:59:59.999Z'))).toBe(at('2026-11-27T00:00:00Z'));
    expect(periodStart('month', at('2026-11-27T10:00:00Z'))).toBe(at('2026-11-01T00:00:00Z'));
    expect(periodStart(null, at('2026-11-27T10:00:00Z'))).toBe(0);
  });

  test('a week is an ISO week: it starts on Monday, a Sunday belongs to the week before', () => {
    // 2026-11-27 is a Friday; 2026-11-23 the Monday before it.
    expect(periodStart('week', at('2026-11-27T10:00:00Z'))).toBe(at('2026-11-23T00:00:00Z'));
    expect(periodStart('week', at('2026-11-23T00:00:00Z'))).toBe(at('2026-11-23T00:00:00Z'));
    expect(periodStart('week', at('2026-11-29T23:00:00Z'))).toBe(at('2026-11-23T00:00:00Z'));
    expect(periodStart('week', at('2026-11-30T00:00:01Z'))).toBe(at('2026-11-30T00:00:00Z'));
  });
});

describe('judging the asks of one transaction', () => {
  const usage = { alive: 1, spent: 40, held: 20, since: 0 };

  test('each ask granted is counted before the next is judged: slots first, then credits', () => {
    const verdicts = judgeAsks({ ...NO_LIMITS, concurrency: 3, maxCredits: 100 }, usage, [
      { key: 'a', amount: 20 },
      { key: 'b', amount: 30 },
      { key: 'c', amount: 10 },
      { key: 'd', amount: 1 },
    ]);
    expect(verdicts.map((v) => (v.granted ? 'granted' : v.limit))).toEqual(['granted', 'credits', 'granted', 'concurrency']);
  });

  test("a refusal for credits says the cap, what is spent and held across manifests, and the job's hold", () => {
    const [verdict] = judgeAsks({ ...NO_LIMITS, maxCredits: 70, per: 'day' }, usage, [{ key: 'a', amount: 15 }]);
    expect(verdict).toEqual({
      granted: false,
      limit: 'credits',
      message: "the account's cap of 70 a day would be passed: 40 spent and 20 held across every manifest, and this job holds 15 (its high estimate)",
    });
  });

  test('without limits every ask is granted', () => {
    expect(judgeAsks(NO_LIMITS, { ...usage, alive: 1000 }, [{ key: 'a', amount: 1e6 }])).toEqual([{ granted: true }]);
  });
});

test("a job in doubt keeps its slot ten times its kind's typical life, at least an hour", () => {
  expect(slotLifeMs(180)).toBe(3_600_000);
  expect(slotLifeMs(36 * 3600)).toBe(360 * 3_600_000);
});
