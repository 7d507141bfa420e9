import { describe, expect, test } from 'vitest';
import { widthOf } from '../../../src/report/progress/fit.js';
import { blockLines } from '../../../src/report/progress/lines.js';
import type { StepTally } from '../../../src/report/progress/tally.js';

/** A step 5/10 of the way: 40 s left, 12 credits, 2 not sent, 1 in doubt, 2 running, 4 done, 1 failed. */
const step = (id: string, over: Partial<StepTally> = {}): StepTally => ({
  id, jobs: 10, settled: 5, remaining: 4, etaMs: 40_000, etaAtLeast: false, medianMs: 10_000,
  counts: { 'not submitted': 2, 'in doubt': 1, running: 2, done: 4, failed: 1 }, credits: { known: 12, unknownJobs: 0, jobs: 5 },
  ...over,
});
const total = (over: Partial<StepTally> = {}) => step('total', { jobs: 20, settled: 10, etaAtLeast: true, ...over });
const ELAPSED = 72_000;

describe('the live block keeps the counts needing a person in sight on a narrow terminal', () => {
  test.each([
    [
      'wide enough: every part, in the vocabulary\'s order', 140, 'shorts',
      'shorts  █████░░░░░  5/10  ETA 40s · 12 credits · 2 not submitted, 1 in doubt, 2 running, 4 done, 1 failed',
      'total   █████░░░░░  10/20  ETA ≥40s · 1m12s elapsed · 12 credits · 2 not submitted, 1 in doubt, 2 running, 4 done, 1 failed',
    ],
    [
      '80 columns: the time left goes, then the elapsed time, then the credits, then the other counts', 80, 'shorts',
      'shorts  █████░░░░░  5/10  1 in doubt, 1 failed, 2 not submitted, 2 running, …',
      'total   █████░░░░░  10/20  1 in doubt, 1 failed, 2 not submitted, 2 running, …',
    ],
    [
      '80 columns, a long step id: the counts needing a person first, as many others as fit', 80, 'product-videos-for-spring-sale',
      'product-videos-for-spri…  █████░░░░░  5/10  1 in doubt, 1 failed, …',
      'total                     █████░░░░░  10/20  1 in doubt, 1 failed, …',
    ],
    [
      '60 columns: the bar goes before a count needing a person would', 60, 'product-videos-for-spring-sale',
      'product-videos-for-spri…  5/10  1 in doubt, 1 failed, …',
      'total                     10/20  1 in doubt, 1 failed, …',
    ],
    [
      '100 columns: the time left goes first', 100, 'shorts',
      'shorts  █████░░░░░  5/10  12 credits · 2 not submitted, 1 in doubt, 2 running, 4 done, 1 failed',
      'total   █████░░░░░  10/20  12 credits · 2 not submitted, 1 in doubt, 2 running, 4 done, 1 failed',
    ],
  ])('%s', (_, columns, id, stepLine, totalLine) => {
    expect(blockLines([step(id)], total(), ELAPSED, 4, columns)).toEqual([stepLine, totalLine]);
  });

  test.each([
    [80, { 'in doubt': 3, 'hook failed': 1, 'partly failed': 2, failed: 4, rejected: 1 }],
    [60, { 'in doubt': 3, failed: 4, rejected: 1 }],
  ])('at %i columns every line fits and names every count needing a person, its step\'s name cut if need be', (columns, attention) => {
    const counts = { 'not submitted': 120, submitted: 30, running: 40, done: 800, ...attention };
    const steps = [step('ads-for-every-market-we-sell-in', { jobs: 1001, settled: 808, counts }), step('teaser')];
    for (const line of blockLines(steps, total({ jobs: 1011, counts }), ELAPSED, 4, columns)) {
      expect(widthOf(line), line).toBeLessThanOrEqual(columns - 1);
      if (line.startsWith('teaser')) continue;
      for (const [word, n] of Object.entries(attention)) expect(line).toContain(`${n} ${word}`);
    }
  });

  test('a step with no count needing a person keeps as many of its counts as fit', () => {
    const calm = step('product-videos-for-spring-sale', { counts: { 'not submitted': 2, running: 4, done: 4 } });
    expect(blockLines([calm], total({ counts: calm.counts }), ELAPSED, 4, 60)[0]).toBe('product-videos-for-spri…  5/10  2 not submitted, …');
  });
});
