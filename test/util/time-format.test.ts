import { describe, expect, test } from 'vitest';
import { formatDuration, isoTime, utcIso, utcIsoOrNull } from '../../src/util/time-format.js';

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

describe('utcIso', () => {
  test('prints what Date.prototype.toISOString prints, across days, years and their edges', () => {
    const times = [0, 1, 999, 86_399_999, 86_400_000, Date.UTC(2024, 1, 29, 23, 59, 59, 999), Date.UTC(2026, 10, 25, 12, 0, 0, 7), Date.UTC(9999, 11, 31, 23, 59, 59, 999)];
    for (let i = 0; i < 5000; i++) times.push(Date.UTC(2026, 0, 1) + i * 7_777_777 + (i % 1000));
    for (const ms of times) expect(utcIso(ms)).toBe(new Date(ms).toISOString());
  });

  test('hands what it cannot print by table to Date: before 1970, past year 9999, between milliseconds', () => {
    for (const ms of [-1, -86_400_001, Date.UTC(10000, 0, 1), 1.5, 1_700_000_000_000.25]) expect(utcIso(ms)).toBe(new Date(ms).toISOString());
  });
});

test('a time not known prints as null, a known one as utcIso does', () => {
  expect([utcIsoOrNull(null), utcIsoOrNull(undefined), utcIsoOrNull(0)]).toEqual([null, null, '1970-01-01T00:00:00.000Z']);
});
