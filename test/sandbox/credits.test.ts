import { beforeAll, describe, expect, test } from 'vitest';
import { sandboxFor, makeLink, HOUR, type TestSandbox } from './helpers.js';
import { FIXTURE_IDS } from '../../src/sandbox/index.js';

/**
 * Credits charged, written from the spec's text ("Limits → Credits") with every expected number
 * worked out by hand here, never by calling src/pricing. Where the price depends on a length, the
 * length is stated in the input: a `#t=0,SECONDS` media fragment (docs/sandbox.md), or for scripts
 * the spoken-length model: ceil(words / 2.5 + 2) seconds.
 */
/** A finished avatar every sandbox has (docs/sandbox.md, Fixtures): lipsyncs speak with real avatars only. */
const AVATAR = FIXTURE_IDS.personas[0];
const words = (n: number) => Array.from({ length: n }, () => 'word').join(' ');
const lipsync = (n: number, model_version: string) => ({
  video_inputs: [{ character: { type: 'avatar', avatar_id: AVATAR }, voice: { type: 'text', input_text: words(n) } }],
  model_version,
});
const h3 = (resolution: string, duration: number, extra: Record<string, unknown> = {}) => ({ prompt: 'p', model: 'boreal-h3', resolution, duration, ...extra });
const images = (n: number) => Array.from({ length: n }, (_, i) => `https://i.example.com/${i}.png`);
const video = (seconds: number, i = 0) => `https://v.example.com/${i}.mp4#t=0,${seconds}`;

interface PriceCase { rule: string; path: string; body: unknown; credits: number; read?: string }

const cases: PriceCase[] = [
  // Rule 1: AI Short creation and AI Editing: 5 credits per 30 seconds of video (per started 30 s).
  { rule: '1 AI Short of 10 words: 6 s → one block', path: '/api/ai_shorts/', body: { aspect_ratio: '9x16', style: '3D', script: words(10) }, credits: 5 },
  { rule: '1 AI Short of 70 words: exactly 30 s → one block', path: '/api/ai_shorts/', body: { aspect_ratio: '9x16', style: '3D', script: words(70) }, credits: 5 },
  { rule: '1 AI Short of 71 words: 30.4 s → 31 s → two blocks', path: '/api/ai_shorts/', body: { aspect_ratio: '9x16', style: '3D', script: words(71) }, credits: 10 },
  { rule: '1 AI Short of 145 words: exactly 60 s → two blocks', path: '/api/ai_shorts/', body: { aspect_ratio: '9x16', style: '3D', script: words(145) }, credits: 10 },
  { rule: '1 AI Short of 146 words: 61 s → three blocks', path: '/api/ai_shorts/', body: { aspect_ratio: '9x16', style: '3D', script: words(146) }, credits: 15 },
  { rule: '1 AI Editing of a 30 s video', path: '/api/ai_editing/', body: { video_url: video(30) }, credits: 5 },
  { rule: '1 AI Editing of a 31 s video', path: '/api/ai_editing/', body: { video_url: video(31) }, credits: 10 },
  { rule: '1 AI Editing of a half-second video still starts a block', path: '/api/ai_editing/', body: { video_url: video(0.5) }, credits: 5 },
  { rule: '1 AI Editing of a 90 s video (?duration=)', path: '/api/ai_editing/', body: { video_url: 'https://v.example.com/x.mp4?duration=90' }, credits: 15 },
  // Rule 4: lipsync by model_version.
  { rule: '4 standard, 6 s: 5 per 30 s', path: '/api/lipsyncs_v2/', body: lipsync(10, 'standard'), credits: 5 },
  { rule: '4 standard, 31 s', path: '/api/lipsyncs_v2/', body: lipsync(71, 'standard'), credits: 10 },
  { rule: '4 boreal, 6 s: 10 per 30 s', path: '/api/lipsyncs_v2/', body: lipsync(10, 'boreal'), credits: 10 },
  { rule: '4 boreal, 31 s', path: '/api/lipsyncs_v2/', body: lipsync(71, 'boreal'), credits: 20 },
  { rule: '4 aurora_v1, 6 s: 1 per second', path: '/api/lipsyncs_v2/', body: lipsync(10, 'aurora_v1'), credits: 6 },
  { rule: '4 aurora_v1, 6.4 s rounds up to 7 s', path: '/api/lipsyncs_v2/', body: lipsync(11, 'aurora_v1'), credits: 7 },
  { rule: '4 aurora_v1_fast, 6 s: 0.5 per second', path: '/api/lipsyncs_v2/', body: lipsync(10, 'aurora_v1_fast'), credits: 3 },
  { rule: '4 aurora_v1_fast, 6.4 s → 7 s', path: '/api/lipsyncs_v2/', body: lipsync(11, 'aurora_v1_fast'), credits: 3.5 },
  { rule: '4 aurora_v2, 6 s: 0.7 per second', path: '/api/lipsyncs_v2/', body: lipsync(10, 'aurora_v2'), credits: 4.2 },
  { rule: '4 aurora_v2, 6.4 s → 7 s', path: '/api/lipsyncs_v2/', body: lipsync(11, 'aurora_v2'), credits: 4.9 },
  // Rule 5: boreal, each started 10 seconds costs 1 (720p), 3 (1080p) or 12 (2k).
  { rule: '5 720p 10 s', path: '/api/boreal/', body: { prompt: 'p', duration: 10 }, credits: 1 },
  { rule: '5 720p 11 s', path: '/api/boreal/', body: { prompt: 'p', duration: 11 }, credits: 2 },
  { rule: '5 720p 0.5 s', path: '/api/boreal/', body: { prompt: 'p', duration: 0.5 }, credits: 1 },
  { rule: '5 720p 60 s', path: '/api/boreal/', body: { prompt: 'p', duration: 60, resolution: '720p' }, credits: 6 },
  { rule: '5 1080p 10 s', path: '/api/boreal/', body: { prompt: 'p', duration: 10, resolution: '1080p' }, credits: 3 },
  { rule: '5 1080p 25 s', path: '/api/boreal/', body: { prompt: 'p', duration: 25, resolution: '1080p' }, credits: 9 },
  { rule: '5 2k 5 s', path: '/api/boreal/', body: { prompt: 'p', duration: 5, resolution: '2k' }, credits: 12 },
  { rule: '5 2k 15 s', path: '/api/boreal/', body: { prompt: 'p', duration: 15, resolution: '2k' }, credits: 24 },
  { rule: '5 audio-driven: 25 s of audio, duration ignored', path: '/api/boreal/', body: { prompt: 'p', audio_url: 'https://a.example.com/s.mp3#t=0,25', duration: 60 }, credits: 3 },
  { rule: '5 audio-driven: 90 s of audio at 1080p is held to 30 s', path: '/api/boreal/', body: { prompt: 'p', audio_url: 'https://a.example.com/s.mp3#t=0,90', resolution: '1080p' }, credits: 9 },
  // Rule 6: boreal-h3, 0.4 / 1.2 / 2.6 per second plus references; total rounded up to half a credit.
  { rule: '6 768p 5 s: 2.0', path: '/api/boreal/', body: h3('768p', 5), credits: 2 },
  { rule: '6 768p 7 s: 2.8 → 3', path: '/api/boreal/', body: h3('768p', 7), credits: 3 },
  { rule: '6 default resolution is 768p', path: '/api/boreal/', body: { prompt: 'p', model: 'boreal-h3', duration: 6 }, credits: 2.5 },
  { rule: '6 1088p 5 s: 6.0', path: '/api/boreal/', body: h3('1088p', 5), credits: 6 },
  { rule: '6 1088p 7 s: 8.4 → 8.5', path: '/api/boreal/', body: h3('1088p', 7), credits: 8.5 },
  { rule: '6 2k 5 s: 13.0', path: '/api/boreal/', body: h3('2k', 5), credits: 13 },
  { rule: '6 2k 15 s: 39.0', path: '/api/boreal/', body: h3('2k', 15), credits: 39 },
  { rule: '6 five reference images are free', path: '/api/boreal/', body: h3('768p', 5, { reference_image_urls: images(5) }), credits: 2 },
  { rule: '6 a sixth image costs 0.2: 2.2 → 2.5', path: '/api/boreal/', body: h3('768p', 5, { reference_image_urls: images(6) }), credits: 2.5 },
  { rule: '6 nine images: 2 + 0.8 = 2.8 → 3', path: '/api/boreal/', body: h3('768p', 5, { reference_image_urls: images(9) }), credits: 3 },
  { rule: '6 a 10 s reference video at 768p: 2 + 4 = 6', path: '/api/boreal/', body: h3('768p', 5, { reference_video_urls: [video(10)] }), credits: 6 },
  { rule: '6 reference video counted up to 15 s at 1088p: 6 + 9 = 15', path: '/api/boreal/', body: h3('1088p', 5, { reference_video_urls: [video(10, 1), video(10, 2)] }), credits: 15 },
  { rule: '6 2k 6 s and a 3 s reference video: 15.6 + 1.8 = 17.4 → 17.5', path: '/api/boreal/', body: h3('2k', 6, { reference_video_urls: [video(3)] }), credits: 17.5 },
  { rule: '6 768p 5 s and a 2.5 s reference video: 2 + 1 = 3', path: '/api/boreal/', body: h3('768p', 5, { reference_video_urls: [video(2.5)] }), credits: 3 },
  { rule: '6 768p 5 s and a 5.1 s reference video: 2 + 2.04 = 4.04 → 4.5', path: '/api/boreal/', body: h3('768p', 5, { reference_video_urls: [video(5.1)] }), credits: 4.5 },
  // Sandbox prices (docs/sandbox.md): ad clone 84 per started 30 s of the reference, as observed.
  { rule: 'sandbox ad clone of a 30 s reference', path: '/api/ads_clone/', body: 'link', credits: 84 },
  { rule: 'sandbox ad clone of a 31 s reference', path: '/api/ads_clone/', body: 'link31', credits: 168 },
];

let t: TestSandbox;
let link: string;
beforeAll(async () => {
  t = await sandboxFor({ credits: 1_000_000, speed: 100 });
  link = await makeLink(t);
});

const balance = async () => (await t.get('/api/remaining_credits/')).body.remaining_credits as number;

async function finished(path: string, id: string) {
  t.advance(HOUR);
  return (await t.get(`${path}${id}/`)).body;
}

describe('credits follow the spec rules', () => {
  test.each(cases)('rule $rule → $credits', async (c) => {
    const body = c.body === 'link' ? { link, video_url: video(30) } : c.body === 'link31' ? { link, video_url: video(31) } : c.body;
    const before = await balance();
    const created = await t.post(c.path, body);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    // Filled in when processing starts, as the live service does (an ad clone may already be running).
    expect(created.body.credits_used).toBe(created.body.status === 'running' ? c.credits : 0);
    const done = await finished(c.path, created.body.id);
    expect(done.status).toBe('done');
    expect(done.credits_used).toBe(c.credits);
    expect(before - (await balance())).toBeCloseTo(c.credits, 5);
  });

  test('rule 2: regenerating a product video costs 1 credit', async () => {
    const task = (await t.post('/api/product_to_videos/gen_image/', { product_url: 'https://i.example.com/p.png' })).body.id;
    await finished('/api/product_to_videos/', task);
    await t.post(`/api/product_to_videos/${task}/gen_video/`, {});
    await finished('/api/product_to_videos/', task);
    const before = await balance();
    const regen = (await t.post(`/api/product_to_videos/${task}/regen_video/`, { video_prompt: 'again' })).body;
    expect((await finished('/api/product_to_videos/', regen.id)).credits_used).toBe(1);
    expect(before - (await balance())).toBe(1);
  });
});

describe('rule 3: HTML ads cost 10 per ad and failed ads are refunded', () => {
  // Games and quizzes carry the first image, showcases and swipes all of them (docs/sandbox.md);
  // a `size_mb=6` image cannot be compressed below 6 MB.
  const bigSecond = ['https://i.example.com/small.png', 'https://i.example.com/big.png?size_mb=6'];
  test.each([
    ['one style', ['quiz-3q'], 5, undefined, 10, 'done'],
    ['twenty styles', ['scratch-card', 'spin-wheel', 'tap-to-reveal', 'memory-match', 'catch-falling', 'runner-dash', 'puzzle-slide', 'pop-the-bubbles', 'quiz-3q', 'this-or-that', 'personality-pick', 'price-guess', 'carousel', 'hero-zoom', 'before-after', 'feature-tour', 'countdown-offer', 'unboxing', 'swipe-deck', 'story-cards'], 15, undefined, 200, 'done'],
    ['three styles, the showcase too large for 5 MB: 30 − 10', ['quiz-3q', 'carousel', 'scratch-card'], 5, bigSecond, 20, 'done'],
    ['the same three within 15 MB', ['quiz-3q', 'carousel', 'scratch-card'], 15, bigSecond, 30, 'done'],
    ['every ad too large: all refunded, the job fails', ['carousel', 'swipe-deck'], 5, bigSecond, 0, 'failed'],
  ])('%s → %s credits', async (_name, styles, maxSize, imageUrls, credits, status) => {
    const adLink = await makeLink(t, imageUrls as string[] | undefined);
    const before = await balance();
    const created = await t.post('/api/html_interactive_ads/', { link: imageUrls ? adLink : link, style_ids: styles, max_size_mb: maxSize });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(before - (await balance())).toBe((styles as string[]).length * 10); // held at creation
    const done = await finished('/api/html_interactive_ads/', created.body.id);
    expect(done.status).toBe(status);
    expect(done.credits_used).toBe(credits);
    expect(before - (await balance())).toBe(credits);
    expect(done.ads.filter((ad: { status: string }) => ad.status === 'done')).toHaveLength(credits / 10);
  });
});

describe('refunds and shortfalls', () => {
  test('a failed lipsync reports 0 credits and is refunded', async () => {
    const failing = await sandboxFor({ credits: 100, speed: 100, faults: { rates: { jobFailure: 1 } } });
    const created = (await failing.post('/api/lipsyncs_v2/', lipsync(10, 'aurora_v1'))).body;
    failing.advance(HOUR);
    const done = (await failing.get(`/api/lipsyncs_v2/${created.id}/`)).body;
    expect(done).toMatchObject({ status: 'failed', credits_used: 0 });
    expect(failing.sandbox.stats().credits).toEqual({ charged: 6, refunded: 6, balance: 100 });
  });

  test('a rejected job never used credits and is refunded', async () => {
    const rejecting = await sandboxFor({ credits: 100, speed: 100, faults: { rates: { jobRejection: 1 } } });
    const created = (await rejecting.post('/api/boreal/', { prompt: 'p', duration: 20 })).body;
    rejecting.advance(HOUR);
    expect((await rejecting.get(`/api/boreal/${created.id}/`)).body).toMatchObject({ status: 'rejected', credits_used: 0 });
    expect(rejecting.sandbox.stats().credits.balance).toBe(100);
  });

  test('a creation the balance cannot cover is refused with 402 and charges nothing', async () => {
    const poor = await sandboxFor({ credits: 4 });
    const answer = await poor.post('/api/ai_shorts/', { aspect_ratio: '9x16', style: '3D', script: words(10) });
    expect(answer.status).toBe(402);
    expect(answer.body.detail).toMatch(/Insufficient credits/);
    expect(poor.sandbox.stats().credits).toEqual({ charged: 0, refunded: 0, balance: 4 });
    expect(poor.sandbox.stats().created.ai_short ?? 0).toBe(0);
  });

  test('in fail mode the job is created and fails with "Insufficient credits", unpaid', async () => {
    const poor = await sandboxFor({ credits: 4, insufficientCredits: 'fail' });
    const created = await poor.post('/api/ai_shorts/', { aspect_ratio: '9x16', style: '3D', script: words(10) });
    expect(created.status).toBe(201);
    poor.advance(HOUR);
    expect((await poor.get(`/api/ai_shorts/${created.body.id}/`)).body).toMatchObject({ status: 'failed', failed_reason: 'Insufficient credits', credits_used: 0 });
    expect(poor.sandbox.stats().credits.balance).toBe(4);
  });

  test.each(['refuse', 'fail'] as const)('in %s mode a link scrape the balance cannot pay is refused (it has no state to fail in)', async (mode) => {
    const broke = await sandboxFor({ credits: 0, insufficientCredits: mode });
    const answer = await broke.post('/api/links/', { url: 'https://shop.example.com/p/a' });
    expect(answer.status).toBe(402);
    expect(broke.sandbox.stats().created.link ?? 0).toBe(0);
    expect(broke.sandbox.stats().credits).toEqual({ charged: 0, refunded: 0, balance: 0 });
  });

  test('in fail mode a product gen_video the balance cannot pay is accepted, then fails unpaid', async () => {
    const poor = await sandboxFor({ credits: 3, insufficientCredits: 'fail' }); // the image (1) but not the video (5)
    const task = (await poor.post('/api/product_to_videos/gen_image/', { product_url: 'https://i.example.com/p.png' })).body.id;
    poor.advance(HOUR);
    expect((await poor.post(`/api/product_to_videos/${task}/gen_video/`, { video_prompt: 'spin' })).status).toBe(200);
    poor.advance(HOUR);
    const done = (await poor.get(`/api/product_to_videos/${task}/`)).body;
    expect(done).toMatchObject({ status: 'failed', failed_reason: 'Insufficient credits', video_prompt: 'spin', generated_video_url: null });
    expect(poor.sandbox.stats().credits).toEqual({ charged: 1, refunded: 0, balance: 2 });
    expect(poor.sandbox.stats().created.product_video).toBe(1);
  });

  test('in fail mode a template render the balance cannot pay is accepted, then fails unpaid', async () => {
    const broke = await sandboxFor({ credits: 0, insufficientCredits: 'fail' });
    const job = (await broke.post('/api/custom_template_jobs/preview_async/', { template_id: 'vid_2b81e4d0' })).body.id;
    broke.advance(HOUR);
    expect((await broke.post(`/api/custom_template_jobs/${job}/render/`, {})).status).toBe(200);
    broke.advance(HOUR);
    expect((await broke.get(`/api/custom_template_jobs/${job}/`)).body).toMatchObject({ status: 'failed', failed_reason: 'Insufficient credits', video_output: null });
    expect(broke.sandbox.stats().credits.balance).toBe(0);
  });

  test('in refuse mode a further step the balance cannot pay is 402 and changes nothing', async () => {
    const poor = await sandboxFor({ credits: 3 });
    const task = (await poor.post('/api/product_to_videos/gen_image/', { product_url: 'https://i.example.com/p.png' })).body.id;
    poor.advance(HOUR);
    expect((await poor.post(`/api/product_to_videos/${task}/gen_video/`, { video_prompt: 'spin' })).status).toBe(402);
    expect((await poor.get(`/api/product_to_videos/${task}/`)).body).toMatchObject({ status: 'image_generated', video_prompt: '' });
    expect(poor.sandbox.stats().created.product_video ?? 0).toBe(0);
  });

  test('scraping a link costs 1 credit; a 400 costs nothing', async () => {
    const s = await sandboxFor({ credits: 10 });
    await s.post('/api/links/', { url: 'https://shop.example.com/p/a' });
    await s.post('/api/boreal/', { prompt: 'p', duration: 999 });
    expect(s.sandbox.stats().credits).toEqual({ charged: 1, refunded: 0, balance: 9 });
  });
});
