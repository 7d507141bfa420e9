import { describe, expect, test } from 'vitest';
import { summarise } from '../../bench/lib/figures.js';
import { ahead, atMost, flatOrFalling, linear, targetRows, verdictWord } from '../../bench/lib/targets.js';

describe('targets beside measurements', () => {
  test.each([
    [[1.03, 1.05, 1.06], 1.04, false],
    [[1.03, 1.04, 1.09], 1.04, true],
    [[0.9], 1.04, true],
    [[], 1.04, undefined],
  ])('runs %j against ≤ %d: met is %s (judged on the median run)', (values, limit, met) => {
    expect(atMost('makespan', summarise(values), limit).met).toBe(met);
  });

  test('a target row shows the goal, min / median, and the verdict word', () => {
    const target = atMost('CPU per job', summarise([2.5, 2.1, 2.3]), 2, { unit: ' ms' });
    expect(targetRows([target])).toEqual([['CPU per job', '≤ 2.00 ms', '2.10 / 2.30 ms', 'NOT MET']]);
  });

  test('ahead of another client means a lower median', () => {
    expect(ahead('x', summarise([1.1, 1.2]), summarise([1.2, 1.3]), 'obvious').met).toBe(true);
    expect(ahead('x', summarise([1.25]), summarise([1.2, 1.3]), 'obvious').met).toBe(false);
    expect(ahead('x', summarise([1.1]), summarise([]), 'obvious').met).toBeUndefined();
  });

  test.each([
    [[8, 8.5, 9.2], true],
    [[8, 7, 6], true],
    [[8, 9, 8.5], false],
    [[100, 120], false],
    [[5], undefined],
  ])('flat or falling %j: %s (each step may rise 10 %% at most)', (values, met) => {
    expect(flatOrFalling('cpu', values).met).toBe(met);
  });

  test.each([
    [[3.5, 3.4, 3.3], true],
    [[4.2, 3.4, 3.3], false],
    [[3.3, 3.3, NaN], undefined],
  ])('state size per job %j is linear: %s (within 15 %% of the largest size\'s)', (perJob, met) => {
    expect(linear('db', perJob).met).toBe(met);
  });

  test.each([[true, 'MET'], [false, 'NOT MET'], [undefined, 'not measured']])('verdict %s reads %s', (met, word) => {
    expect(verdictWord(met)).toBe(word);
  });
});
