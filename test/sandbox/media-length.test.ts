import { describe, expect, test } from 'vitest';
import { mediaSeconds } from '../../src/sandbox/media-length.js';

/** The reference-length rule of docs/sandbox.md. */
const RANGE = { min: 3, max: 15 };

describe('the length of a media URL', () => {
  test.each([
    ['a #t=,end segment', 'https://v.example.com/a.mp4#t=,12', 12],
    ['a fractional #t=0,end', 'https://v.example.com/a.mp4#t=0,2.5', 2.5],
    ['a #t=start,end range', 'https://v.example.com/a.mp4#t=10,25', 15],
    ['a duration= query', 'https://v.example.com/a.mp4?duration=40', 40],
    ['the fragment wins over the query', 'https://v.example.com/a.mp4?duration=40#t=0,5', 5],
  ])('%s states it', (_name, url, seconds) => {
    expect(mediaSeconds(url, 1, RANGE)).toBe(seconds);
  });

  test('a lone #t=START is a start time, not a length: the seeded length applies', () => {
    const url = 'https://v.example.com/a.mp4#t=40';
    expect(mediaSeconds(url, 1, RANGE)).toBeLessThanOrEqual(15);
  });

  test('otherwise a whole number in the range, the same for the same URL and seed', () => {
    const urls = Array.from({ length: 50 }, (_, i) => `https://v.example.com/${i}.mp4`);
    const lengths = urls.map((url) => mediaSeconds(url, 1, RANGE));
    expect(lengths.every((s) => Number.isInteger(s) && s >= 3 && s <= 15)).toBe(true);
    expect(new Set(lengths).size).toBeGreaterThan(5);
    expect(urls.map((url) => mediaSeconds(url, 1, RANGE))).toEqual(lengths);
    expect(urls.map((url) => mediaSeconds(url, 2, RANGE))).not.toEqual(lengths);
  });
});
