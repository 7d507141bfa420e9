import { describe, expect, test } from 'vitest';
import { compareReady, inReadyOrder } from '../../src/run/ready-order.js';

describe('the order of ready jobs: priority descending, then plan order', () => {
  test.each([
    ['a higher priority first', { priority: 10, order: 9 }, { priority: 0, order: 0 }, -1],
    ['a lower priority after', { priority: -1, order: 0 }, { priority: 0, order: 9 }, 1],
    ['equal priorities: plan order', { priority: 3, order: 1 }, { priority: 3, order: 2 }, -1],
    ['equal priorities, later in the plan: after', { priority: 3, order: 5 }, { priority: 3, order: 2 }, 1],
    ['above every priority (a job already sent)', { priority: Infinity, order: 9 }, { priority: 1000, order: 0 }, -1],
    ['two above every priority: plan order', { priority: Infinity, order: 1 }, { priority: Infinity, order: 2 }, -1],
  ])('%s', (_, a, b, sign) => {
    expect(Math.sign(compareReady(a, b))).toBe(sign);
    expect(Math.sign(compareReady(b, a))).toBe(-sign);
  });

  test('sorts a list stably, leaving the list given as it was', () => {
    const jobs = [{ id: 'a', p: 0 }, { id: 'b', p: 10 }, { id: 'c', p: 0 }, { id: 'd', p: 10 }, { id: 'e', p: -5 }];
    expect(inReadyOrder(jobs, (j) => j.p).map((j) => j.id)).toEqual(['b', 'd', 'a', 'c', 'e']);
    expect(jobs.map((j) => j.id)).toEqual(['a', 'b', 'c', 'd', 'e']);
  });
});
