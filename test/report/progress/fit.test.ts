import { describe, expect, test } from 'vitest';
import { fitToWidth } from '../../../src/report/progress/fit.js';

describe('a line fitted to the terminal never reaches its last column', () => {
  test.each([
    ['short enough: as it is', 'hello', 10, 'hello'],
    ['exactly columns - 1: as it is', '123456789', 10, '123456789'],
    ['one too many: cut with an ellipsis', '1234567890', 10, '12345678…'],
    ['wide characters count twice', '漢字漢字漢字', 10, '漢字漢字…'],
    ['block characters count once', '██████████', 8, '██████…'],
  ])('%s', (_, line, columns, expected) => {
    expect(fitToWidth(line, columns)).toBe(expected);
  });
});
