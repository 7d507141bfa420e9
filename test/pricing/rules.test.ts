import { describe, expect, test } from 'vitest';
import {
  aiVideoCredits, borealCredits, h3Credits, htmlAdsCredits, LINK_SCRAPE_CREDITS, lipsyncCredits, perStartedBlock, REGEN_CREDITS,
  roundUpToHalf, spokenSeconds, statedSeconds, tenths, type H3Inputs, type LipsyncModel,
} from '../../src/pricing/index.js';
import type { BorealResolution } from '../../src/api/schemas/index.js';

/**
 * The spec's pricing rules ("Limits → Credits"), every expected figure worked out by hand from the
 * spec's text in the row's name, never computed with src/pricing.
 */

describe('per started block: a job of any length pays one block, each started block one more', () => {
  test.each([
    [0.1, 30, 5, 5], [30, 30, 5, 5], [30.1, 30, 5, 10], [60, 30, 5, 10], [60.5, 30, 5, 15], [10, 10, 3, 3], [10.01, 10, 3, 6],
  ])('%s s in blocks of %s s at %s → %s', (seconds, block, perBlock, credits) => {
    expect(perStartedBlock(seconds, block, perBlock)).toBe(credits);
  });
});

describe('rule 1: AI Shorts and AI Editing, 5 credits per 30 seconds of video', () => {
  test.each([
    ['half a second still starts a block', 0.5, 5], ['6 s', 6, 5], ['exactly 30 s is one block', 30, 5], ['30.1 s starts a second block', 30.1, 10],
    ['60 s', 60, 10], ['61 s', 61, 15], ['90 s', 90, 15],
  ])('%s → %s', (_name, seconds, credits) => {
    expect(aiVideoCredits(seconds)).toBe(credits);
  });
});

describe('rules 2 and 3, and the behaviour notes: fixed prices', () => {
  test('rule 2: a product video regeneration costs 1', () => expect(REGEN_CREDITS).toBe(1));
  test.each([[0, 0], [1, 10], [3, 30], [20, 200]])('rule 3: %s finished ads cost %s (failed ads refunded)', (ads, credits) => {
    expect(htmlAdsCredits(ads)).toBe(credits);
  });
  test('behaviour notes: scraping a link costs 1', () => expect(LINK_SCRAPE_CREDITS).toBe(1));
});

describe('rule 4: lipsync by model_version; Aurora per second, partial seconds round up', () => {
  test.each([
    ['standard', 6, 5], ['standard', 30, 5], ['standard', 30.1, 10], ['standard', 61, 15],
    ['boreal', 6, 10], ['boreal', 30, 10], ['boreal', 45, 20],
    ['aurora_v1', 7, 7], ['aurora_v1', 7.2, 8], ['aurora_v1', 0.3, 1],
    ['aurora_v1_fast', 7, 3.5], ['aurora_v1_fast', 7.2, 4], ['aurora_v1_fast', 6.01, 3.5],
    ['aurora_v2', 3, 2.1], ['aurora_v2', 7.2, 5.6], ['aurora_v2', 10.01, 7.7], ['aurora_v2', 30, 21],
  ] as [LipsyncModel, number, number][])('%s, %s s → %s', (model, seconds, credits) => {
    expect(lipsyncCredits(model, seconds)).toBe(credits);
  });
});

describe('rule 5: boreal, each started 10 seconds costs 1 (720p), 3 (1080p) or 12 (2k)', () => {
  test.each([
    ['720p', 0.1, 1], ['720p', 10, 1], ['720p', 10.5, 2], ['720p', 60, 6],
    ['1080p', 10, 3], ['1080p', 20.1, 9], ['1080p', 30, 9],
    ['2k', 0.1, 12], ['2k', 10, 12], ['2k', 15, 24],
  ] as [BorealResolution, number, number][])('%s %s s → %s', (resolution, seconds, credits) => {
    expect(borealCredits(resolution, seconds)).toBe(credits);
  });
  test('an H3 resolution has no boreal price', () => expect(() => borealCredits('768p', 5)).toThrow(RangeError));
});

describe('rule 6: boreal-h3, per second plus references, the total rounded up to half a credit', () => {
  const h3 = (resolution: BorealResolution, seconds: number, referenceImages = 0, referenceVideoSeconds = 0): H3Inputs =>
    ({ resolution, seconds, referenceImages, referenceVideoSeconds });
  test.each([
    ['768p 5 s: 5 × 0.4 = 2', h3('768p', 5), 2],
    ['768p 6 s: 2.4 → 2.5', h3('768p', 6), 2.5],
    ['768p 7 s: 2.8 → 3', h3('768p', 7), 3],
    ['1088p 7 s: 8.4 → 8.5', h3('1088p', 7), 8.5],
    ['1088p 15 s: 18', h3('1088p', 15), 18],
    ['2k 5 s: 13', h3('2k', 5), 13],
    ['2k 15 s: 39', h3('2k', 15), 39],
    ['five reference images are free: 2', h3('768p', 5, 5), 2],
    ['a sixth image costs 0.2: 2.2 → 2.5', h3('768p', 5, 6), 2.5],
    ['nine images: 2 + 0.8 = 2.8 → 3', h3('768p', 5, 9), 3],
    ['1088p 5 s and eight images: 6 + 0.6 = 6.6 → 7', h3('1088p', 5, 8), 7],
    ['768p 5 s and 10 s of reference video: 2 + 4 = 6', h3('768p', 5, 0, 10), 6],
    ['reference video counted up to 15 s at 768p: 2 + 15 × 0.4 = 8', h3('768p', 5, 0, 20), 8],
    ['1088p: 6 + 15 × 0.6 = 15', h3('1088p', 5, 0, 15), 15],
    ['1088p with 30 s of video, counted as 15: 15', h3('1088p', 5, 0, 30), 15],
    ['2k: 13 + 15 × 0.6 = 22, and 16 s counts as 15', h3('2k', 5, 0, 16), 22],
    ['2k 6 s and 3 s of video: 15.6 + 1.8 = 17.4 → 17.5', h3('2k', 6, 0, 3), 17.5],
    ['an exact half stays: 2 + 6.25 × 0.4 = 4.5', h3('768p', 5, 0, 6.25), 4.5],
    ['an exact whole stays: 2 + 2.5 × 0.4 = 3', h3('768p', 5, 0, 2.5), 3],
    ['below a tenth over: 2 + 5.1 × 0.4 = 4.04 → 4.5', h3('768p', 5, 0, 5.1), 4.5],
    ['below a tenth over: 2 + 0.1 × 0.4 = 2.04 → 2.5', h3('768p', 5, 0, 0.1), 2.5],
    ['below a tenth over at 1088p: 6 + 0.05 × 0.6 = 6.03 → 6.5', h3('1088p', 5, 0, 0.05), 6.5],
    ['below a tenth over at 2k: 13 + 5.05 × 0.6 = 16.03 → 16.5', h3('2k', 5, 0, 5.05), 16.5],
    ['all together: 768p 10 s, 7 images, 15.5 s of video: 4 + 0.4 + 6 = 10.4 → 10.5', h3('768p', 10, 7, 15.5), 10.5],
  ])('%s', (_name, input, credits) => {
    expect(h3Credits(input)).toBe(credits);
  });
  test('a boreal resolution has no boreal-h3 price', () => expect(() => h3Credits(h3('720p', 5))).toThrow(RangeError));
});

describe('rounding', () => {
  test.each([
    ['0', 0, 0], ['4', 4, 4], ['4.01', 4.01, 4.5], ['4.04', 4.04, 4.5], ['4.5', 4.5, 4.5], ['4.51', 4.51, 5], ['4.999', 4.999, 5],
    ['0.4 × 7 (binary noise over 2.8)', 0.4 * 7, 3], ['0.1 + 0.2 (binary noise over 0.3)', 0.1 + 0.2, 0.5], ['1 plus binary noise', 1.0000000000000002, 1],
  ])('roundUpToHalf(%s) → %s', (_name, credits, rounded) => {
    expect(roundUpToHalf(credits)).toBe(rounded);
  });
  test.each([[0.7 * 3, 2.1], [0.1 + 0.2, 0.3], [4.96, 5], [12.34, 12.3]])('tenths(%s) → %s', (credits, rounded) => {
    expect(tenths(credits)).toBe(rounded);
  });
});

describe('spoken length: words at 3 / 2.5 / 2 per second, plus 2 s, whole seconds rounded up', () => {
  const words = (n: number) => Array.from({ length: n }, () => 'word').join(' ');
  test.each([
    ['no words: the padding alone', '', { low: 2, expected: 2, high: 2 }],
    ['10 words: 5.3 → 6, 6, 7', words(10), { low: 6, expected: 6, high: 7 }],
    ['70 words: 25.3 → 26, 30, 37', words(70), { low: 26, expected: 30, high: 37 }],
    ['any whitespace separates words: 3 words', '  a   b\nc ', { low: 3, expected: 4, high: 4 }],
  ])('%s', (_name, text, seconds) => {
    expect(spokenSeconds(text)).toEqual(seconds);
  });
});

describe('a URL may state its media length', () => {
  test.each([
    ['a segment from 0, #t=,12', 'https://x.example.com/a.mp4#t=,12', 12],
    ['a range #t=2,6 lasts 4', 'https://x.example.com/a.mp4#t=2,6', 4],
    ['a query duration=3', 'https://x.example.com/a.mp4?duration=3', 3],
    ['the fragment wins over the query', 'https://x.example.com/a.mp4?duration=9#t=0,4', 4],
    ['a lone start time #t=12 states nothing (it is where playback starts)', 'https://x.example.com/a.mp4#t=12', undefined],
    ['a lone start time defers to the query', 'https://x.example.com/a.mp4?duration=9#t=12', 9],
    ['an empty segment #t=3,3 states nothing', 'https://x.example.com/a.mp4#t=3,3', undefined],
    ['a backwards range states nothing', 'https://x.example.com/a.mp4#t=6,2', undefined],
    ['a plain URL states nothing', 'https://x.example.com/a.mp4', undefined],
    ['not a URL', 'clip.mp4#t=5', undefined],
    ['a placeholder', 'https://x.example.com/{{ clip }}#t=5', undefined],
    ['not a string', 42, undefined],
  ])('%s → %s', (_name, url, seconds) => {
    expect(statedSeconds(url)).toBe(seconds);
  });
});
