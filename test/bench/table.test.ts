import { expect, test } from 'vitest';
import { summarise } from '../../bench/lib/figures.js';
import { fixed, markdownTable, minMedian } from '../../bench/lib/table.js';

test('a Markdown table pads its columns and escapes pipes in cells', () => {
  expect(markdownTable(['', 'a|b'], [['row one', 1.5], ['r', undefined]])).toBe([
    '|         | a\\|b |',
    '| ------- | ---- |',
    '| row one | 1.5  |',
    '| r       |      |',
  ].join('\n'));
});

test.each([
  [[1.2345, 1.1, 1.3], 2, ' s', '1.10 / 1.23 s'],
  [[7], 0, ' MB', '7 MB'],
  [[], 2, '', '–'],
])('runs %j read as min / median: %s', (values, digits, unit, text) => {
  expect(minMedian(summarise(values), digits, unit)).toBe(text);
});

test('a missing figure reads as a dash', () => {
  expect(fixed(NaN)).toBe('–');
});
