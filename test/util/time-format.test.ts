import { describe, expect, test } from 'vitest';
import { formatDuration, isoTime } from '../../src/util/time-format.js';

const AT = Date.UTC(2026, 10, 23, 2, 43, 59, 123);

describe('times in logs', () => {
  test.each([
    [0, '2026-11-23T02:43:59.123Z'],
    [60, '2026-11-23T03:43:59.123+01:00'],
    [-300, '2026-11-22T21:43:59.123-05:00'],
    [330, '2026-11-23T08:13:59.123+05:30'],
  ])('offset %i minutes: %s (the date, the time to the millisecond and the zone)', (offset, expected) => {
    expect(isoTime(AT, offset)).toBe(expected);
    expect(new Date(isoTime(AT, offset)).getTime()).toBe(AT);
  });

  test.each([
    [0, '0s'],
    [44_600, '45s'],
    [185_000, '3m05s'],
    [7_440_000, '2h04m'],
  ])('%i ms reads %s', (ms, expected) => {
    expect(formatDuration(ms)).toBe(expected);
  });
});
