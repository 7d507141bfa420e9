import { describe, expect, test } from 'vitest';
import { isQuick, listOption, sized } from '../../bench/lib/options.js';

describe("a benchmark's command line", () => {
  test('--quick picks the quick size', () => {
    expect(isQuick(['--quick'])).toBe(true);
    expect(sized(100, 5, ['--quick'])).toBe(5);
    expect(sized(100, 5, [])).toBe(100);
  });

  test('a list option reads its comma-separated words, after a space or an equals sign', () => {
    expect(listOption('sizes', ['--sizes', '20000,100000'])).toEqual(['20000', '100000']);
    expect(listOption('clients', ['--quick', '--clients=sqlite, obvious'])).toEqual(['sqlite', 'obvious']);
    expect(listOption('sizes', ['--quick'])).toBeUndefined();
  });

  test('a list option given without its list is refused, naming it', () => {
    expect(() => listOption('sizes', ['--sizes'])).toThrow('--sizes takes a comma-separated list');
  });
});
