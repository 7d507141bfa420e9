import { describe, expect, test } from 'vitest';
import { RETRY_DEFAULTS, parseRetryAfter, retryDelayMs } from '../../src/api/index.js';

const NOW = Date.UTC(2026, 2, 1, 9, 0, 0);
const options = { ...RETRY_DEFAULTS, baseDelayMs: 100, maxDelayMs: 1000, maxRetryAfterMs: 10_000 };

describe('parseRetryAfter', () => {
  test.each<[string, string | string[] | undefined, number | undefined]>([
    ['delay-seconds', '1', 1000],
    ['zero', '0', 0],
    ['fractional seconds', '1.5', 1500],
    ['surrounding spaces', ' 7 ', 7000],
    ['an HTTP date 30 s ahead', new Date(NOW + 30_000).toUTCString(), 30_000],
    ['an HTTP date in the past', new Date(NOW - 5_000).toUTCString(), 0],
    ['the first of repeated headers', ['2', '9'], 2000],
    ['absent', undefined, undefined],
    ['empty', '', undefined],
    ['garbage', 'soon', undefined],
    ['a negative number', '-3', undefined],
  ])('%s', (_name, header, expected) => {
    expect(parseRetryAfter(header, NOW)).toBe(expected);
  });
});

describe('retryDelayMs', () => {
  test.each<[string, number, number | undefined, number, number]>([
    ['full jitter: random 0 waits nothing', 1, undefined, 0, 0],
    ['attempt 1 ceiling is the base', 1, undefined, 0.5, 50],
    ['attempt 2 ceiling doubles', 2, undefined, 0.5, 100],
    ['attempt 3 ceiling doubles again', 3, undefined, 0.5, 200],
    ['ceiling stops at maxDelayMs', 10, undefined, 0.999, 999],
    ['Retry-After wins over backoff', 3, 2500, 0.5, 2500],
    ['Retry-After is clamped to maxRetryAfterMs', 1, 3_600_000, 0.5, 10_000],
    ['Retry-After 0 retries at once', 1, 0, 0.5, 0],
  ])('%s', (_name, attempt, retryAfterMs, random, expected) => {
    expect(retryDelayMs(attempt, retryAfterMs, options, () => random)).toBe(expected);
  });
});
