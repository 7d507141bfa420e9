import { describe, expect, test } from 'vitest';
import { estimateCredits } from '../../src/plan/index.js';
import type { StepKind } from '../../src/step-kinds.js';

/**
 * Credit estimates, rule by rule, with figures worked by hand from the spec's "Limits → Credits"
 * text and the spoken-length model (2.5 words/s typical, 3 fast, 2 slow, plus 2 s, rounded up).
 */
const words = (n: number) => Array.from({ length: n }, () => 'word').join(' ');
const range = (low: number, expected: number, high: number) => ({ low, expected, high, exact: false });
const exact = (n: number) => ({ low: n, expected: n, high: n, exact: true });

describe('rule 1: AI Shorts, 5 credits per started 30 s of the script spoken', () => {
  test.each([
    ['one word: 3 s at every pace', 1, range(5, 5, 5)],
    ['70 words: 26 s / exactly 30 s / 37 s — 30 s is still one block', 70, range(5, 5, 10)],
    ['73 words: 27 s / 32 s / 39 s', 73, range(5, 10, 10)],
    ['200 words: 69 s / 82 s / 102 s', 200, range(15, 15, 20)],
  ])('%s', (_, n, expected) => {
    expect(estimateCredits('ai_short', { script: words(n) })).toEqual(expected);
  });

  test('a script that is a reference is unknown until run time', () => {
    expect(estimateCredits('ai_short', { script: '{{ steps.writer.response_text }}' })).toBeNull();
  });
});

describe('rule 4: lipsync by model, on 10 words (6 s fast, 6 s typical, 7 s slow)', () => {
  const body = (model?: string) => ({
    ...(model ? { model_version: model } : {}),
    video_inputs: [{ voice: { type: 'text', input_text: words(10) } }],
  });
  test.each([
    ['standard (the default): 5 per started 30 s', undefined, range(5, 5, 5)],
    ['aurora_v1: 1 per second', 'aurora_v1', range(6, 6, 7)],
    ['aurora_v1_fast: 0.5 per second', 'aurora_v1_fast', range(3, 3, 3.5)],
    ['aurora_v2: 0.7 per second', 'aurora_v2', range(4.2, 4.2, 4.9)],
    ['boreal: 10 per started 30 s', 'boreal', range(10, 10, 10)],
  ])('%s', (_, model, expected) => {
    expect(estimateCredits('lipsync_v2', body(model))).toEqual(expected);
  });

  test('scenes are said one after another: their words add up', () => {
    const scenes = [{ voice: { input_text: words(40) } }, { voice: { input_text: words(40) } }];
    // 80 words: 29 s fast, 34 s typical, 42 s slow.
    expect(estimateCredits('lipsync_v2', { video_inputs: scenes })).toEqual(range(5, 10, 10));
  });
});

describe('rule 5: Boreal, per started 10 s: 1 at 720p, 3 at 1080p, 12 at 2k', () => {
  test.each([
    ['720p is the default; 5 s is one block', { duration: 5 }, exact(1)],
    ['10 s at 720p is one block', { resolution: '720p', duration: 10 }, exact(1)],
    ['11 s at 720p starts a second block', { resolution: '720p', duration: 11 }, exact(2)],
    ['60 s at 720p', { resolution: '720p', duration: 60 }, exact(6)],
    ['30 s at 1080p', { resolution: '1080p', duration: 30 }, exact(9)],
    ['15 s at 2k', { resolution: '2k', duration: 15 }, exact(24)],
    ['audio sets the length: 1 block up to the 60 s limit at 720p', { audio_url: 'https://example.com/a.mp3' }, range(1, 3, 6)],
    ['audio at 2k: up to 15 s', { resolution: '2k', audio_url: 'https://example.com/a.mp3' }, range(12, 12, 24)],
    ['audio that states 25 s (?duration=25) at 720p', { audio_url: 'https://example.com/a.mp3?duration=25' }, exact(3)],
    ['a stated length past the limit is cut to it (2k, 40 s → 15 s)', { resolution: '2k', audio_url: 'https://example.com/a.mp3#t=0,40' }, exact(24)],
  ])('%s', (_, fields, expected) => {
    expect(estimateCredits('boreal', { prompt: 'p', ...fields })).toEqual(expected);
  });
});

describe('rule 6: Boreal-H3, per second plus references, rounded up to half a credit', () => {
  const h3 = (fields: object) => estimateCredits('boreal', { prompt: 'p', model: 'boreal-h3', ...fields });
  const images = (n: number) => Array.from({ length: n }, (_, i) => `https://example.com/${i}.png`);
  test.each([
    ['768p (default) 5 s: 0.4/s', { duration: 5 }, exact(2)],
    ['1088p 7 s: 8.4 rounds up to 8.5', { resolution: '1088p', duration: 7 }, exact(8.5)],
    ['2k 15 s: 2.6/s', { resolution: '2k', duration: 15 }, exact(39)],
    ['5 reference images are free', { duration: 5, reference_image_urls: images(5) }, exact(2)],
    ['a 6th image costs 0.2: 2.2 rounds up to 2.5', { duration: 5, reference_image_urls: images(6) }, exact(2.5)],
    ['9 images: 2 + 0.8 = 2.8 rounds up to 3', { duration: 5, reference_image_urls: images(9) }, exact(3)],
    ['a reference video of unknown length at 768p 10 s: 0..15 s at 0.4/s', { duration: 10, reference_video_urls: ['https://example.com/v.mp4'] }, range(4, 7, 10)],
    ['at 1088p 5 s: 0..15 s at 0.6/s', { resolution: '1088p', duration: 5, reference_video_urls: ['https://example.com/v.mp4'] }, range(6, 10.5, 15)],
    ['stated lengths (#t=2,6 and ?duration=3) are exact: 5 s + 7 s × 0.4 = 4.8 → 5', { duration: 5, reference_video_urls: ['https://example.com/a.mp4#t=2,6', 'https://example.com/b.mp4?duration=3'] }, exact(5)],
    ['stated lengths count up to 15 s: 2 + 15 × 0.4 = 8', { duration: 5, reference_video_urls: ['https://example.com/a.mp4#t=0,12', 'https://example.com/b.mp4#t=0,9'] }, exact(8)],
    ['one stated (4 s), one not: 2 + 4..15 s × 0.4, i.e. 3.6 → 4, 6.6 → 7, 8', { duration: 5, reference_video_urls: ['https://example.com/a.mp4#t=0,4', 'https://example.com/b.mp4'] }, range(4, 7, 8)],
  ])('%s', (_, fields, expected) => {
    expect(h3(fields)).toEqual(expected);
  });
});

describe('fixed prices', () => {
  test.each([
    ['rule 2: a product regeneration costs 1', 'product_regen', {}, exact(1)],
    ['rule 3: HTML ads cost 10 per style', 'html_ads', { style_ids: ['a', 'b', 'c'] }, exact(30)],
    ['behaviour notes: scraping a link costs 1', 'link', { url: 'https://example.com' }, exact(1)],
    ['behaviour notes: lists and reads are free, so a music lookup costs 0', 'music', { category: 'pop' }, exact(0)],
  ] as [string, StepKind, object, object][])('%s', (_, kind, body, expected) => {
    expect(estimateCredits(kind, body as Record<string, unknown>)).toEqual(expected);
  });
});

describe('rule 1 for AI Editing: priced by the input video, known only when its URL states it', () => {
  test.each([
    ['a URL that states 45 s', 'https://example.com/in.mp4?duration=45', exact(10)],
    ['a URL that states 20 s by fragment', 'https://example.com/in.mp4#t=0,20', exact(5)],
    ['a URL that states nothing', 'https://example.com/in.mp4', null],
  ])('%s', (_, url, expected) => {
    expect(estimateCredits('ai_editing', { video_url: url })).toEqual(expected);
  });
});

describe('unknown, never 0, where nobody prices the kind', () => {
  test.each([
    'ai_editing', 'persona', 'voice_clone', 'link_with_params', 'ad_clone',
    'text_generation', 'asset_generation', 'custom_template',
  ] as StepKind[])('%s', (kind) => {
    expect(estimateCredits(kind, {})).toBeNull();
  });
});

describe('free where the operation makes nothing (and the run reserves and counts 0 for it too)', () => {
  test.each(['persona_delete', 'link_update', 'music'] as StepKind[])('%s', (kind) => {
    expect(estimateCredits(kind, {})).toEqual({ low: 0, expected: 0, high: 0, exact: true });
  });
});
