import { expect, test } from 'vitest';
import { PathFilter } from '../../../src/state/postgres/pg-path-filter.js';

/** The Bloom filter of recorded paths (pg-path-filter.ts): never a false "no", seldom a false "yes", however many paths. */

const pathOf = (i: number) => `shorts/script-${i}-${(i * 7919) % 1000}.mp4`;

test('every path added is said to be there, across the layers it grows (50,000 paths)', () => {
  const filter = new PathFilter();
  for (let i = 0; i < 50_000; i++) filter.add(pathOf(i));
  const missed = Array.from({ length: 50_000 }, (_, i) => pathOf(i)).filter((path) => !filter.mayHave(path));
  expect(missed).toEqual([]);
});

test('paths never added are said to be there less than 1 time in 100', () => {
  const filter = new PathFilter();
  for (let i = 0; i < 20_000; i++) filter.add(pathOf(i));
  let wrong = 0;
  for (let i = 0; i < 20_000; i++) if (filter.mayHave(`others/${pathOf(i)}`)) wrong++;
  expect(wrong / 20_000).toBeLessThan(0.01);
});

test('an empty filter says no path is there', () => {
  expect(new PathFilter().mayHave('shorts/a.mp4')).toBe(false);
});
