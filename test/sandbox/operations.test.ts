import { beforeAll, describe, expect, test } from 'vitest';
import { ManualClock } from '../../src/util/clock.js';
import { sandboxFor, makeLink, HOUR, type TestSandbox } from './helpers.js';
import { FIXTURE_IDS } from '../../src/sandbox/index.js';

/**
 * Every operation of the spec and of the behaviour notes, once with valid input and once per rule
 * the spec states, asserting the status and the field the DRF body names.
 */
const GHOST = '00000000-0000-4000-8000-000000000000';
/** A finished avatar every sandbox has (docs/sandbox.md, Fixtures): lipsyncs speak with real avatars only. */
const AVATAR = FIXTURE_IDS.personas[0];
const long = (n: number) => 'x'.repeat(n);
const url = (n: number) => `https://cdn.example.com/${'a'.repeat(n - 'https://cdn.example.com/'.length)}`;

let t: TestSandbox;
const ids: Record<string, string> = {};

beforeAll(async () => {
  t = await sandboxFor({ credits: 1_000_000 });
  ids.link = await makeLink(t);
  ids.bareLink = await makeLink(t, ['https://img.example.com/a.png']);
  await t.call('PUT', `/api/links/${ids.bareLink}/`, { image_urls: [] });
  ids.short = (await t.post('/api/ai_shorts/', { aspect_ratio: '9x16', script: 'A short script.', style: '3D' })).body.id;
  ids.editing = (await t.post('/api/ai_editing/', { video_url: 'https://v.example.com/in.mp4' })).body.id;
  ids.imageTask = (await t.post('/api/product_to_videos/gen_image/', { product_url: 'https://img.example.com/p.png' })).body.id;
  ids.videoTask = (await t.post('/api/product_to_videos/gen_image/', { product_url: 'https://img.example.com/q.png' })).body.id;
  ids.persona = (await t.post('/api/personas_v2/', { creator_name: 'Ada', gender: 'f', gdown_url: 'https://drive.example.com/ada' })).body.id;
  ids.preview = (await t.post('/api/custom_template_jobs/preview_async/', { template_id: 'vid_2b81e4d0', variables: {} })).body.id;
  t.advance(HOUR);
  await t.post(`/api/product_to_videos/${ids.videoTask}/gen_video/`, {});
  t.advance(HOUR);
  ids.ads = (await t.post('/api/html_interactive_ads/', { link: ids.link, style_ids: ['quiz-3q'] })).body.id;
  ids.lipsync = (await t.post('/api/lipsyncs_v2/', lipsyncBody())).body.id;
  ids.boreal = (await t.post('/api/boreal/', { prompt: 'A fox', duration: 5 })).body.id;
  ids.clone = (await t.post('/api/ads_clone/', { link: ids.link, video_url: 'https://v.example.com/ref.mp4' })).body.id;
  ids.text = (await t.post('/api/text_generator/', { model_name: 'm', messages: [{ role: 'user', content: 'hi' }] })).body.id;
  ids.asset = (await t.post('/api/asset_generator/', { model_name: 'sandbox-image-v1', input_params: { prompt: 'a cat' } })).body.id;
  ids.templateJob = (await t.post('/api/custom_template_jobs/', { template_id: 'vid_7f3a9c21', variables: { headline: 'Hi' } })).body.id;
  ids.unreadyPreview = (await t.post('/api/custom_template_jobs/preview_async/', { template_id: 'vid_2b81e4d0' })).body.id;
});

function lipsyncBody(text = 'Hello from the sandbox.', extra: Record<string, unknown> = {}) {
  return { video_inputs: [{ character: { type: 'avatar', avatar_id: AVATAR }, voice: { type: 'text', input_text: text } }], ...extra };
}


interface Case { name: string; method?: string; path: string | (() => string); body?: unknown; status: number }
const pathOf = (c: Case) => (typeof c.path === 'string' ? c.path : c.path());

describe('every operation answers valid input', () => {
  const cases: Case[] = [
    { name: 'AI Short create (JSON)', method: 'POST', path: '/api/ai_shorts/', body: { aspect_ratio: '16x9', script: 'Hi there.', style: 'Kawaii', caption_setting: { style: 'neo', font_family: 'IBM Plex Mono' } }, status: 201 },
    { name: 'AI Short create (form-urlencoded)', method: 'POST', path: '/api/ai_shorts/', body: 'aspect_ratio=1x1&script=Hello+form&style=3D&voiceover_volume=0.5&caption_setting=%7B%22style%22%3A%22neo%22%7D', status: 201 },
    { name: 'AI Short read', path: () => `/api/ai_shorts/${ids.short}/`, status: 200 },
    { name: 'AI Short list by ids', path: () => `/api/ai_shorts/?ids=${ids.short},${GHOST}`, status: 200 },
    { name: 'AI Editing create', method: 'POST', path: '/api/ai_editing/', body: { video_url: 'https://v.example.com/b.mp4', editing_style: 'glitch' }, status: 201 },
    { name: 'AI Editing read', path: () => `/api/ai_editing/${ids.editing}/`, status: 200 },
    { name: 'product gen_image', method: 'POST', path: '/api/product_to_videos/gen_image/', body: { product_url: 'https://img.example.com/r.png', type: 'product_avatar' }, status: 201 },
    { name: 'product gen_video', method: 'POST', path: () => `/api/product_to_videos/${ids.imageTask}/gen_video/`, body: { video_prompt: 'spin', motion_style: 'display' }, status: 200 },
    { name: 'product regen_video', method: 'POST', path: () => `/api/product_to_videos/${ids.videoTask}/regen_video/`, body: { video_prompt: 'slower' }, status: 200 },
    { name: 'product read', path: () => `/api/product_to_videos/${ids.videoTask}/`, status: 200 },
    { name: 'avatar create', method: 'POST', path: '/api/personas_v2/', body: { creator_name: 'Bo', gender: 'nb', gdown_url: 'https://drive.example.com/bo', labels: ['a'], original_voice_provider: 'provider-c' }, status: 201 },
    { name: 'avatar read', path: () => `/api/personas_v2/${ids.persona}/`, status: 200 },
    { name: 'link scrape', method: 'POST', path: '/api/links/', body: { url: 'https://shop.example.com/p/mug' }, status: 201 },
    { name: 'link with params', method: 'POST', path: '/api/links/link_with_params/', body: { title: 'Mug', image_urls: ['https://img.example.com/m.png'] }, status: 201 },
    { name: 'link update (JSON)', method: 'PUT', path: () => `/api/links/${ids.link}/`, body: { title: 'Trail Shoe 2' }, status: 200 },
    { name: 'link update (form, repeated key list)', method: 'PUT', path: () => `/api/links/${ids.bareLink}/`, body: 'description=Plain&video_urls=https%3A%2F%2Fv.example.com%2F1.mp4&video_urls=https%3A%2F%2Fv.example.com%2F2.mp4', status: 200 },
    { name: 'link read', path: () => `/api/links/${ids.link}/`, status: 200 },
    { name: 'voice clone', method: 'POST', path: '/api/voices/', body: { original_audio_url: 'https://a.example.com/v.mp3', name: 'Narrator', voice_provider: 'provider-c' }, status: 201 },
    { name: 'HTML ads create', method: 'POST', path: '/api/html_interactive_ads/', body: () => ({}), status: 201 },
    { name: 'HTML ads styles', path: '/api/html_interactive_ads/styles/', status: 200 },
    { name: 'HTML ads read', path: () => `/api/html_interactive_ads/${ids.ads}/`, status: 200 },
    { name: 'HTML ads list by ids', path: () => `/api/html_interactive_ads/?ids=${ids.ads}`, status: 200 },
    { name: 'lipsync create', method: 'POST', path: '/api/lipsyncs_v2/', body: lipsyncBody('Hi.', { model_version: 'aurora_v2', aspect_ratio: '1x1' }), status: 201 },
    { name: 'lipsync list with window', path: '/api/lipsyncs_v2/?created_after=2025-01-01T00:00:00&created_before=2030-01-01T00:00:00Z', status: 200 },
    { name: 'lipsync read', path: () => `/api/lipsyncs_v2/${ids.lipsync}/`, status: 200 },
    { name: 'Boreal create', method: 'POST', path: '/api/boreal/', body: { prompt: 'Waves', resolution: '1080p', duration: 30, aspect_ratio: '9:16' }, status: 201 },
    { name: 'Boreal audio-driven create', method: 'POST', path: '/api/boreal/', body: { prompt: 'Sing', audio_url: 'https://a.example.com/s.mp3#t=0,12' }, status: 201 },
    { name: 'Boreal-H3 reference render', method: 'POST', path: '/api/boreal/', body: { prompt: 'Image 1 walks', model: 'boreal-h3', duration: 8, reference_image_urls: ['https://i.example.com/1.png'], reference_audio_urls: ['https://a.example.com/1.mp3'] }, status: 201 },
    { name: 'Boreal-H3 start and end frame', method: 'POST', path: '/api/boreal/', body: { prompt: 'Morph', model: 'boreal-h3', duration: 5, image_url: 'https://i.example.com/a.png', end_image_url: 'https://i.example.com/b.png' }, status: 201 },
    { name: 'Boreal read', path: () => `/api/boreal/${ids.boreal}/`, status: 200 },
    { name: 'ad clone create', method: 'POST', path: '/api/ads_clone/', body: () => ({}), status: 201 },
    { name: 'ad clone list', path: '/api/ads_clone/', status: 200 },
    { name: 'ad clone read', path: () => `/api/ads_clone/${ids.clone}/`, status: 200 },
    { name: 'text generation create', method: 'POST', path: '/api/text_generator/', body: { model_name: 'm', messages: [{ role: 'user', content: 'Write a tagline' }], config: { temperature: 0.2 } }, status: 201 },
    { name: 'text generation read under /sse/', path: () => `/sse/text_generator/${ids.text}/`, status: 200 },
    { name: 'asset create', method: 'POST', path: '/api/asset_generator/', body: { model_name: 'sandbox-video-v1', input_params: { prompt: 'waves', duration: 4 }, output_nums: 2 }, status: 201 },
    { name: 'asset model schemas, filtered', path: '/api/asset_generator/schemas/?model_name=sandbox-image-v1,sandbox-music-v1', status: 200 },
    { name: 'asset read', path: () => `/api/asset_generator/${ids.asset}/`, status: 200 },
    { name: 'music page', path: '/api/musics/?category=calm&page=1&page_size=5&search=a', status: 200 },
    { name: 'custom templates list', path: '/api/custom_templates/', status: 200 },
    { name: 'custom template detail', path: '/api/custom_templates/vid_c4d2a9e7/', status: 200 },
    { name: 'template create and render', method: 'POST', path: '/api/custom_template_jobs/', body: { template_id: 'vid_c4d2a9e7', variables: { quote: 'Great', speaker: { avatar_id: AVATAR }, voice: { voice_id: GHOST } } }, status: 201 },
    { name: 'template preview', method: 'POST', path: '/api/custom_template_jobs/preview_async/', body: { template_id: 'vid_7f3a9c21', variables: { product_image: 'https://i.example.com/p.png' } }, status: 201 },
    { name: 'template render after preview', method: 'POST', path: () => `/api/custom_template_jobs/${ids.preview}/render/`, body: {}, status: 200 },
    { name: 'template job read', path: () => `/api/custom_template_jobs/${ids.templateJob}/`, status: 200 },
    { name: 'remaining credits', path: '/api/remaining_credits/', status: 200 },
    { name: 'avatar delete', method: 'DELETE', path: () => `/api/personas/${ids.persona}/`, status: 204 },
  ];
  const bodies: Record<string, () => unknown> = {
    'HTML ads create': () => ({ link: ids.link, style_ids: ['scratch-card', 'carousel'], max_size_mb: 15, promotion_info: '20% off' }),
    'ad clone create': () => ({ link: ids.link, video_url: 'https://v.example.com/ref.mp4#t=0,30', language: 'de', aspect_ratio: '1x1' }),
  };

  test.each(cases)('$name → $status', async (c) => {
    const body = bodies[c.name]?.() ?? c.body;
    const answer = await t.call(c.method ?? 'GET', pathOf(c), body);
    expect(answer.status, JSON.stringify(answer.body)).toBe(c.status);
  });
});

const short = { aspect_ratio: '9x16', script: 'Hi.', style: '3D' };

describe('every rule the spec states is enforced with a DRF 400 naming the field', () => {
  const h3 = { prompt: 'p', model: 'boreal-h3', duration: 5 };
  const refs = (n: number) => Array.from({ length: n }, (_, i) => `https://i.example.com/${i}.png`);
  const cases: { name: string; method?: string; path: string | (() => string); body?: unknown | (() => unknown); field: string }[] = [
    { name: 'AI Short without aspect_ratio', path: '/api/ai_shorts/', body: { script: 'Hi.', style: '3D' }, field: 'aspect_ratio' },
    { name: 'AI Short aspect_ratio 4x5', path: '/api/ai_shorts/', body: { ...short, aspect_ratio: '4x5' }, field: 'aspect_ratio' },
    { name: 'AI Short unknown style', path: '/api/ai_shorts/', body: { ...short, style: 'Noir' }, field: 'style' },
    { name: 'AI Short without script', path: '/api/ai_shorts/', body: { aspect_ratio: '9x16', style: '3D' }, field: 'script' },
    { name: 'AI Short voiceover_volume above 1', path: '/api/ai_shorts/', body: { ...short, voiceover_volume: 1.5 }, field: 'voiceover_volume' },
    { name: 'AI Short background_music_volume below 0', path: '/api/ai_shorts/', body: { ...short, background_music_volume: -0.1 }, field: 'background_music_volume' },
    { name: 'AI Short background_music_url over 255', path: '/api/ai_shorts/', body: { ...short, background_music_url: url(256) }, field: 'background_music_url' },
    { name: 'AI Short webhook_url over 200', path: '/api/ai_shorts/', body: { ...short, webhook_url: url(201) }, field: 'webhook_url' },
    { name: 'AI Short webhook_url not a URL', path: '/api/ai_shorts/', body: { ...short, webhook_url: 'not a url' }, field: 'webhook_url' },
    { name: 'AI Short name over 255', path: '/api/ai_shorts/', body: { ...short, name: long(256) }, field: 'name' },
    { name: 'AI Short accent not a UUID', path: '/api/ai_shorts/', body: { ...short, accent: 'abc' }, field: 'accent' },
    { name: 'caption unknown font family', path: '/api/ai_shorts/', body: { ...short, caption_setting: { font_family: 'Comic Sans' } }, field: 'caption_setting' },
    { name: 'caption unknown style', path: '/api/ai_shorts/', body: { ...short, caption_setting: { style: 'fancy' } }, field: 'caption_setting' },
    { name: 'caption colour without alpha', path: '/api/ai_shorts/', body: { ...short, caption_setting: { text_color: '#FFFFFF' } }, field: 'caption_setting' },
    { name: 'an unknown field', path: '/api/ai_shorts/', body: { ...short, colour: 'red' }, field: 'colour' },
    { name: 'AI Editing without video_url', path: '/api/ai_editing/', body: {}, field: 'video_url' },
    { name: 'AI Editing video_url over 255', path: '/api/ai_editing/', body: { video_url: url(256) }, field: 'video_url' },
    { name: 'AI Editing unknown editing_style', path: '/api/ai_editing/', body: { video_url: 'https://v.example.com/a.mp4', editing_style: 'retro' }, field: 'editing_style' },
    { name: 'avatar creator_name over 255', path: '/api/personas_v2/', body: { creator_name: long(256), gender: 'm', gdown_url: 'https://d.example.com/x' }, field: 'creator_name' },
    { name: 'avatar video_scene over 255', path: '/api/personas_v2/', body: { creator_name: 'A', gender: 'm', gdown_url: 'https://d.example.com/x', video_scene: long(256) }, field: 'video_scene' },
    { name: 'avatar keywords over 255', path: '/api/personas_v2/', body: { creator_name: 'A', gender: 'm', gdown_url: 'https://d.example.com/x', keywords: long(256) }, field: 'keywords' },
    { name: 'avatar unknown gender', path: '/api/personas_v2/', body: { creator_name: 'A', gender: 'x', gdown_url: 'https://d.example.com/x' }, field: 'gender' },
    { name: 'avatar unknown voice provider', path: '/api/personas_v2/', body: { creator_name: 'A', gender: 'm', gdown_url: 'https://d.example.com/x', original_voice_provider: 'provider-z' }, field: 'original_voice_provider' },
    { name: 'voice original_audio_url over 1000', path: '/api/voices/', body: { original_audio_url: url(1001), name: 'n' }, field: 'original_audio_url' },
    { name: 'voice name over 255', path: '/api/voices/', body: { original_audio_url: 'https://a.example.com/a.mp3', name: long(256) }, field: 'name' },
    { name: 'voice provider-b is not offered for cloning', path: '/api/voices/', body: { original_audio_url: 'https://a.example.com/a.mp3', name: 'n', voice_provider: 'provider-b' }, field: 'voice_provider' },
    { name: 'link scrape of a non-URL', path: '/api/links/', body: { url: 'shop' }, field: 'url' },
    { name: 'link title over 1000', path: '/api/links/link_with_params/', body: { title: long(1001), image_urls: ['https://i.example.com/a.png'] }, field: 'title' },
    { name: 'link update url over 3000', method: 'PUT', path: () => `/api/links/${ids.link}/`, body: { url: long(3001) }, field: 'url' },
    { name: 'link update description over 1000', method: 'PUT', path: () => `/api/links/${ids.link}/`, body: { description: long(1001) }, field: 'description' },
    { name: 'link update logo_url over 2000', method: 'PUT', path: () => `/api/links/${ids.link}/`, body: { logo_url: long(2001) }, field: 'logo_url' },
    { name: 'HTML ads without styles', path: '/api/html_interactive_ads/', body: () => ({ link: ids.link, style_ids: [] }), field: 'style_ids' },
    { name: 'HTML ads with 21 styles', path: '/api/html_interactive_ads/', body: () => ({ link: ids.link, style_ids: Array.from({ length: 21 }, (_, i) => `s${i}`) }), field: 'style_ids' },
    { name: 'HTML ads unknown style', path: '/api/html_interactive_ads/', body: () => ({ link: ids.link, style_ids: ['nope'] }), field: 'style_ids' },
    { name: 'HTML ads max_size_mb 4', path: '/api/html_interactive_ads/', body: () => ({ link: ids.link, style_ids: ['carousel'], max_size_mb: 4 }), field: 'max_size_mb' },
    { name: 'HTML ads max_size_mb 16', path: '/api/html_interactive_ads/', body: () => ({ link: ids.link, style_ids: ['carousel'], max_size_mb: 16 }), field: 'max_size_mb' },
    { name: 'HTML ads unknown link', path: '/api/html_interactive_ads/', body: { link: GHOST, style_ids: ['carousel'] }, field: 'link' },
    { name: 'lipsync input_text over 800', path: '/api/lipsyncs_v2/', body: lipsyncBody(long(801)), field: 'video_inputs' },
    { name: 'lipsync unknown model_version', path: '/api/lipsyncs_v2/', body: lipsyncBody('Hi', { model_version: 'aurora_v9' }), field: 'model_version' },
    { name: 'lipsync name over 255', path: '/api/lipsyncs_v2/', body: lipsyncBody('Hi', { name: long(256) }), field: 'name' },
    { name: 'lipsync list with 101 ids', method: 'GET', path: `/api/lipsyncs_v2/?ids=${Array.from({ length: 101 }, () => GHOST).join(',')}`, field: 'ids' },
    { name: 'lipsync list with a non-UUID id', method: 'GET', path: '/api/lipsyncs_v2/?ids=abc', field: 'ids' },
    { name: 'lipsync list with a bad created_after', method: 'GET', path: '/api/lipsyncs_v2/?created_after=yesterday', field: 'created_after' },
    { name: 'AI Short list with 101 ids', method: 'GET', path: `/api/ai_shorts/?ids=${Array.from({ length: 101 }, () => GHOST).join(',')}`, field: 'ids' },
    { name: 'boreal 61 s at 720p', path: '/api/boreal/', body: { prompt: 'p', duration: 61 }, field: 'duration' },
    { name: 'boreal 31 s at 1080p', path: '/api/boreal/', body: { prompt: 'p', duration: 31, resolution: '1080p' }, field: 'duration' },
    { name: 'boreal 16 s at 2k', path: '/api/boreal/', body: { prompt: 'p', duration: 16, resolution: '2k' }, field: 'duration' },
    { name: 'boreal duration 0', path: '/api/boreal/', body: { prompt: 'p', duration: 0 }, field: 'duration' },
    { name: 'boreal at an H3 resolution', path: '/api/boreal/', body: { prompt: 'p', duration: 5, resolution: '768p' }, field: 'resolution' },
    { name: 'boreal with an end frame', path: '/api/boreal/', body: { prompt: 'p', duration: 5, image_url: 'https://i.example.com/a.png', end_image_url: 'https://i.example.com/b.png' }, field: 'end_image_url' },
    { name: 'boreal with references', path: '/api/boreal/', body: { prompt: 'p', duration: 5, reference_image_urls: refs(1) }, field: 'reference_image_urls' },
    { name: 'boreal with only reference videos', path: '/api/boreal/', body: { prompt: 'p', duration: 5, reference_video_urls: refs(1) }, field: 'reference_video_urls' },
    { name: 'boreal with only reference audio', path: '/api/boreal/', body: { prompt: 'p', duration: 5, reference_image_urls: [], reference_audio_urls: refs(1) }, field: 'reference_audio_urls' },
    { name: 'boreal URL over 2000', path: '/api/boreal/', body: { prompt: 'p', duration: 5, image_url: url(2001) }, field: 'image_url' },
    { name: 'H3 duration 4', path: '/api/boreal/', body: { ...h3, duration: 4 }, field: 'duration' },
    { name: 'H3 duration 16', path: '/api/boreal/', body: { ...h3, duration: 16 }, field: 'duration' },
    { name: 'H3 duration 7.5', path: '/api/boreal/', body: { ...h3, duration: 7.5 }, field: 'duration' },
    { name: 'H3 at a boreal resolution', path: '/api/boreal/', body: { ...h3, resolution: '1080p' }, field: 'resolution' },
    { name: 'H3 with audio_url', path: '/api/boreal/', body: { ...h3, audio_url: 'https://a.example.com/a.mp3' }, field: 'audio_url' },
    { name: 'H3 with negative_prompt', path: '/api/boreal/', body: { ...h3, negative_prompt: 'blur' }, field: 'negative_prompt' },
    { name: 'H3 end frame without start frame', path: '/api/boreal/', body: { ...h3, end_image_url: 'https://i.example.com/b.png' }, field: 'end_image_url' },
    { name: 'H3 reference audio alone', path: '/api/boreal/', body: { ...h3, reference_audio_urls: ['https://a.example.com/a.mp3'] }, field: 'reference_audio_urls' },
    { name: 'H3 reference render with image_url', path: '/api/boreal/', body: { ...h3, image_url: 'https://i.example.com/a.png', reference_image_urls: refs(1) }, field: 'image_url' },
    { name: 'H3 aspect_ratio other than auto', path: '/api/boreal/', body: { ...h3, aspect_ratio: '16:9' }, field: 'aspect_ratio' },
    { name: 'H3 with 10 reference images', path: '/api/boreal/', body: { ...h3, reference_image_urls: refs(10) }, field: 'reference_image_urls' },
    { name: 'H3 with 4 reference videos', path: '/api/boreal/', body: { ...h3, reference_video_urls: refs(4) }, field: 'reference_video_urls' },
    { name: 'H3 with 4 reference audios', path: '/api/boreal/', body: { ...h3, reference_image_urls: refs(1), reference_audio_urls: refs(4) }, field: 'reference_audio_urls' },
    { name: 'ad clone unknown link', path: '/api/ads_clone/', body: { link: GHOST, video_url: 'https://v.example.com/r.mp4' }, field: 'link' },
    { name: 'ad clone link without images', path: '/api/ads_clone/', body: () => ({ link: ids.bareLink, video_url: 'https://v.example.com/r.mp4' }), field: 'link' },
    { name: 'ad clone without video_url', path: '/api/ads_clone/', body: () => ({ link: ids.link }), field: 'video_url' },
    { name: 'ad clone unknown language', path: '/api/ads_clone/', body: () => ({ link: ids.link, video_url: 'https://v.example.com/r.mp4', language: 'xx' }), field: 'language' },
    { name: 'text generation without messages', path: '/api/text_generator/', body: { model_name: 'm', messages: [] }, field: 'messages' },
    { name: 'asset input_params missing a required property', path: '/api/asset_generator/', body: { model_name: 'sandbox-image-v1', input_params: {} }, field: 'input_params' },
    { name: 'asset input_params out of range', path: '/api/asset_generator/', body: { model_name: 'sandbox-video-v1', input_params: { prompt: 'p', duration: 60 } }, field: 'input_params' },
    { name: 'asset aspect_ratio over 128', path: '/api/asset_generator/', body: { model_name: 'sandbox-image-v1', input_params: { prompt: 'p' }, aspect_ratio: long(129) }, field: 'aspect_ratio' },
    { name: 'asset resolution over 128', path: '/api/asset_generator/', body: { model_name: 'sandbox-image-v1', input_params: { prompt: 'p' }, resolution: long(129) }, field: 'resolution' },
    { name: 'asset output_nums beyond 32 bits', path: '/api/asset_generator/', body: { model_name: 'sandbox-image-v1', input_params: { prompt: 'p' }, output_nums: 2 ** 31 }, field: 'output_nums' },
    { name: 'template unknown id', path: '/api/custom_template_jobs/', body: { template_id: 'vid_nope' }, field: 'template_id' },
    { name: 'template unknown variable', path: '/api/custom_template_jobs/', body: { template_id: 'vid_2b81e4d0', variables: { colour: 'red' } }, field: 'variables' },
    { name: 'template avatar variable without avatar_id', path: '/api/custom_template_jobs/', body: { template_id: 'vid_c4d2a9e7', variables: { speaker: 'Ada' } }, field: 'variables' },
    { name: 'product unknown type', path: '/api/product_to_videos/gen_image/', body: { product_url: 'https://i.example.com/p.png', type: 'product_robot' }, field: 'type' },
    { name: 'product aspect_ratio 4x5', path: '/api/product_to_videos/gen_image/', body: { product_url: 'https://i.example.com/p.png', aspect_ratio: '4x5' }, field: 'aspect_ratio' },
    { name: 'product unknown motion_style', path: () => `/api/product_to_videos/${ids.imageTask}/gen_video/`, body: { motion_style: 'dancing' }, field: 'motion_style' },
    { name: 'boreal unknown aspect_ratio', path: '/api/boreal/', body: { prompt: 'p', duration: 5, aspect_ratio: '2:1' }, field: 'aspect_ratio' },
    { name: 'boreal unknown prompt_enhancement', path: '/api/boreal/', body: { prompt: 'p', duration: 5, prompt_enhancement: 'always' }, field: 'prompt_enhancement' },
    { name: 'boreal unknown model', path: '/api/boreal/', body: { prompt: 'p', duration: 5, model: 'boreal-h4' }, field: 'model' },
    { name: 'lipsync aspect_ratio 4x5', path: '/api/lipsyncs_v2/', body: lipsyncBody('Hi', { aspect_ratio: '4x5' }), field: 'aspect_ratio' },
    { name: 'ad clone aspect_ratio 4x5', path: '/api/ads_clone/', body: () => ({ link: ids.link, video_url: 'https://v.example.com/r.mp4', aspect_ratio: '4x5' }), field: 'aspect_ratio' },
    { name: 'product regen with an unknown field', path: () => `/api/product_to_videos/${ids.videoTask}/regen_video/`, body: { prompt: 'x' }, field: 'prompt' },
  ];

  test.each(cases)('$name → 400 naming $field', async (c) => {
    const body = typeof c.body === 'function' ? (c.body as () => unknown)() : c.body;
    const method = c.method ?? 'POST';
    const answer = await t.call(method, typeof c.path === 'string' ? c.path : c.path(), method === 'GET' ? undefined : body);
    expect(answer.status, JSON.stringify(answer.body)).toBe(400);
    expect(Object.keys(answer.body)).toContain(c.field);
  });

  test('nested fields are nested as DRF nests them', async () => {
    const answer = await t.post('/api/ai_shorts/', { ...short, caption_setting: { font_size: 'big' } });
    expect(answer.body).toEqual({ caption_setting: { font_size: ['A valid integer is required.'] } });
  });

  test.each([
    ['a required choice left out', '/api/ai_shorts/', { script: 'Hi', style: '3D' }, { aspect_ratio: ['This field is required.'] }],
    ['a required literal left out', '/api/lipsyncs_v2/', { video_inputs: [{ character: { avatar_id: AVATAR }, voice: { type: 'text', input_text: 'Hi' } }] }, { video_inputs: { 0: { character: { type: ['This field is required.'] } } } }],
    ['text for an integer field', '/api/asset_generator/', { model_name: 'sandbox-image-v1', input_params: { prompt: 'p' }, output_nums: 'two' }, { output_nums: ['A valid integer is required.'] }],
    ['text for a number field', '/api/ai_shorts/', { ...short, voiceover_volume: 'loud' }, { voiceover_volume: ['A valid number is required.'] }],
  ])('%s is worded as DRF words it', async (_name, path, body, expected) => {
    const answer = await t.post(path, body);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual(expected);
  });

  test.each([
    ['an unknown asset model', '/api/asset_generator/', { model_name: 'nope', input_params: {} }, ['AI model not found']],
  ])('%s → a bare array of messages', async (_name, path, body, expected) => {
    const answer = await t.post(path, body);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual(expected);
  });

  test.each([
    ['gen_video before the image is ready', () => `/api/product_to_videos/${ids.videoTask}/gen_video/`],
    ['regen_video of an unfinished task', () => `/api/product_to_videos/${ids.imageTask}/regen_video/`],
    ['render before the preview is ready', () => `/api/custom_template_jobs/${ids.unreadyPreview}/render/`],
  ])('%s → 400 with a non-field message', async (_name, path) => {
    const answer = await t.post(path(), {});
    expect(answer.status).toBe(400);
    expect(Array.isArray(answer.body)).toBe(true);
  });
});

describe('unknown ids and missing credentials', () => {
  const reads: [string, string][] = [
    ['/api/ai_shorts/{id}/', 'AIShort'], ['/api/ai_editing/{id}/', 'AIEditing'], ['/api/product_to_videos/{id}/', 'ProductToVideo'],
    ['/api/personas_v2/{id}/', 'PersonaV2'], ['/api/links/{id}/', 'Link'], ['/api/html_interactive_ads/{id}/', 'HtmlInteractiveAd'],
    ['/api/lipsyncs_v2/{id}/', 'LipsyncV2'], ['/api/boreal/{id}/', 'Boreal'], ['/api/ads_clone/{id}/', 'AdClone'],
    ['/api/asset_generator/{id}/', 'AssetGenerator'], ['/api/custom_template_jobs/{id}/', 'CustomTemplateJob'],
  ];
  test.each(reads)('GET %s with an unknown id → 404 "No %s matches the given query."', async (path, model) => {
    const answer = await t.get(path.replace('{id}', GHOST));
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ detail: `No ${model} matches the given query.` });
  });

  test.each([
    ['PUT', '/api/links/{id}/', { title: 'T' }, 'Link'],
    ['DELETE', '/api/personas/{id}/', undefined, 'Persona'],
    ['POST', '/api/product_to_videos/{id}/regen_video/', { video_prompt: 'again' }, 'ProductToVideo'],
    ['POST', '/api/product_to_videos/{id}/gen_video/', {}, 'ProductToVideo'],
    ['POST', '/api/custom_template_jobs/{id}/render/', {}, 'CustomTemplateJob'],
  ])('%s %s with an unknown id → 404 "No %s matches the given query."', async (method, path, body, model) => {
    const before = t.sandbox.stats().credits.balance;
    const answer = await t.call(method, path.replace('{id}', GHOST), body);
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ detail: `No ${model} matches the given query.` });
    expect(t.sandbox.stats().credits.balance).toBe(before);
  });

  test('a deleted avatar is gone', async () => {
    const made = await t.post('/api/personas_v2/', { creator_name: 'Cy', gender: 'm', gdown_url: 'https://d.example.com/c' });
    expect((await t.call('DELETE', `/api/personas/${made.body.id}/`)).status).toBe(204);
    expect((await t.get(`/api/personas_v2/${made.body.id}/`)).status).toBe(404);
  });

  test('the text generator under /sse/ answers errors as {"error": …}', async () => {
    const missing = await t.get(`/sse/text_generator/${GHOST}/`);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'No TextGenerationTask matches the given query.' });
    const anonymous = await t.call('GET', `/sse/text_generator/${ids.text}/`, undefined, {});
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ error: 'Authentication credentials were not provided.' });
  });

  test.each([
    ['no headers', {}],
    ['only X-API-ID', { 'x-api-id': 'a' }],
    ['only X-API-KEY', { 'x-api-key': 'b' }],
    ['empty values', { 'x-api-id': '', 'x-api-key': '' }],
  ])('%s → 401 and nothing created', async (_name, headers) => {
    const before = t.sandbox.stats().created.ai_short ?? 0;
    const answer = await t.call('POST', '/api/ai_shorts/', short, headers as Record<string, string>);
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({ detail: 'Authentication credentials were not provided.' });
    expect(t.sandbox.stats().created.ai_short ?? 0).toBe(before);
  });

  test('a configured pair accepts only itself', async () => {
    const locked = await sandboxFor({ apiId: 'id-1', apiKey: 'key-1' });
    expect((await locked.call('GET', '/api/remaining_credits/', undefined, { 'x-api-id': 'id-1', 'x-api-key': 'nope' })).status).toBe(401);
    expect((await locked.call('GET', '/api/remaining_credits/', undefined, { 'x-api-id': 'id-1', 'x-api-key': 'key-1' })).status).toBe(200);
  });

  test('introspection needs no credentials; a wrong method is 405', async () => {
    expect((await t.call('GET', '/__sandbox/stats', undefined, {})).status).toBe(200);
    expect((await t.call('GET', '/__sandbox/jobs', undefined, {})).status).toBe(200);
    expect((await t.call('DELETE', '/api/ai_shorts/')).status).toBe(405);
  });

  test('the stats state the speed (a run against --sandbox-url scales its waits by it)', async () => {
    const fast = await sandboxFor({ speed: 250 });
    expect((await fast.call('GET', '/__sandbox/stats', undefined, {})).body).toMatchObject({ speed: 250 });
    expect((await t.call('GET', '/__sandbox/stats', undefined, {})).body).toMatchObject({ speed: 1 });
  });

  test.each([
    ['DELETE', '/api/ai_shorts/'],
    ['PUT', `/api/boreal/${GHOST}/`],
    ['POST', `/sse/text_generator/${GHOST}/`],
  ])('%s %s without credentials → 401 before 405, as DRF authenticates first', async (method, path) => {
    const answer = await t.call(method, path, undefined, {});
    expect(answer.status).toBe(401);
    expect(JSON.stringify(answer.body)).toContain('Authentication credentials were not provided.');
  });
});

describe('references the sandbox checks as the service does', () => {
  const scene = (avatarId: string) => ({ character: { type: 'avatar', avatar_id: avatarId }, voice: { type: 'text', input_text: 'Hi there.' } });

  test('a lipsync speaks with one of the account\'s finished avatars, or is refused and nothing is made', async () => {
    const created = t.sandbox.stats().created.lipsync_v2;
    expect(created).toBeGreaterThan(0);
    const unknown = await t.post('/api/lipsyncs_v2/', { video_inputs: [scene(AVATAR), scene(GHOST)] });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ video_inputs: { 1: { character: { avatar_id: ['Invalid avatar ID'] } } } });
    const avatar = (await t.post('/api/personas_v2/', { creator_name: 'Bo', gender: 'm', gdown_url: 'https://drive.example.com/bo' })).body.id as string;
    t.advance(HOUR);
    const reviewing = await t.post('/api/lipsyncs_v2/', { video_inputs: [scene(avatar)] });
    expect(reviewing.status).toBe(400);
    expect(reviewing.body).toEqual({ video_inputs: { 0: { character: { avatar_id: ['Avatar is not ready to use (status reviewing).'] } } } });
    expect(t.sandbox.stats().created.lipsync_v2).toBe(created);
    expect((await t.post('/api/lipsyncs_v2/', { video_inputs: [scene(FIXTURE_IDS.personas[1])] })).status).toBe(201);
  });

  test('HTML ad sizes are whole bytes, also with a photo the sandbox cannot fetch', async () => {
    const link = await makeLink(t, ['https://shop.example.com/img/a.png?size_mb=0.33']);
    const id = (await t.post('/api/html_interactive_ads/', { link, style_ids: ['carousel', 'quiz-3q'] })).body.id as string;
    t.advance(HOUR);
    const ads = (await t.get(`/api/html_interactive_ads/${id}/`)).body.ads as { size_bytes: number }[];
    expect(ads).toHaveLength(2);
    for (const ad of ads) expect(Number.isInteger(ad.size_bytes), JSON.stringify(ad)).toBe(true);
  });

  test('a path under /sse/ that matches nothing is answered {"error": …} too; under /api/ DRF\'s detail', async () => {
    const sse = await t.get('/sse/text_generator/not-a-uuid/');
    expect({ status: sse.status, body: sse.body }).toEqual({ status: 404, body: { error: 'Not found.' } });
    const api = await t.get('/api/ai_shorts/not-a-uuid/');
    expect({ status: api.status, body: api.body }).toEqual({ status: 404, body: { detail: 'Not found.' } });
  });
});

describe('list windows: a timestamp without an offset is UTC (spec, Endpoints note 1)', () => {
  test.each(['2026-01-01 11:30:00', '2026-01-01T11:30:00', '2026-01-01T11:30', '2026-01-01T12:30:00+01:00', '2026-01-01T11:30:00.000000Z'])(
    'created_after=%s is 11:30 UTC whatever the process time zone',
    async (text) => {
      const s = await sandboxFor({ clock: new ManualClock(Date.UTC(2026, 0, 1, 11, 29)) });
      const before = (await s.post('/api/lipsyncs_v2/', lipsyncBody())).body.id;
      s.advance(60_000); // exactly 11:30:00 UTC: inside an inclusive lower bound
      const at = (await s.post('/api/lipsyncs_v2/', lipsyncBody())).body.id;
      const zone = process.env.TZ;
      process.env.TZ = 'Pacific/Auckland'; // 13 hours ahead of UTC in January: a local reading would be far off
      try {
        const after = (await s.get(`/api/lipsyncs_v2/?created_after=${encodeURIComponent(text)}`)).body.map((j: { id: string }) => j.id);
        const until = (await s.get(`/api/lipsyncs_v2/?created_before=${encodeURIComponent(text)}`)).body.map((j: { id: string }) => j.id);
        expect([after, until]).toEqual([[at], [before]]);
      } finally {
        if (zone === undefined) delete process.env.TZ;
        else process.env.TZ = zone;
      }
    },
  );
});

describe('form encodings', () => {
  test('multipart/form-data is read like JSON, typed by the operation schema', async () => {
    const form = new FormData();
    form.append('aspect_ratio', '1x1');
    form.append('script', '12345');
    form.append('style', 'Collage');
    form.append('background_music_volume', '0.25');
    const response = await fetch(`${t.sandbox.url}/api/ai_shorts/`, { method: 'POST', headers: { 'x-api-id': 'a', 'x-api-key': 'b' }, body: form });
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({ script: '12345', aspect_ratio: '1x1', background_music_volume: 0.25 });
  });

  test('a form value of the wrong type is a field error, not a crash', async () => {
    const answer = await t.post('/api/ai_shorts/', 'aspect_ratio=1x1&script=Hi&style=3D&voiceover_volume=loud');
    expect(answer.status).toBe(400);
    expect(Object.keys(answer.body)).toEqual(['voiceover_volume']);
  });

  test('malformed JSON is a 400 with a detail', async () => {
    const response = await fetch(`${t.sandbox.url}/api/ai_shorts/`, { method: 'POST', headers: { 'x-api-id': 'a', 'x-api-key': 'b', 'content-type': 'application/json' }, body: '{"script": ' });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { detail: string }).detail).toMatch(/JSON parse error/);
  });
});
