import { describe, expect, test } from 'vitest';
import type { z } from 'zod';
import * as s from '../../src/api/schemas/index.js';

const ID = '3f2a6c1e-8b4d-4e2a-9c1f-0a1b2c3d4e5f';
const url = (length: number) => `https://e.co/${'a'.repeat(length - 13)}`;
const text = (length: number) => 'x'.repeat(length);
const many = <T>(n: number, item: T) => Array.from({ length: n }, () => item);

const short = { aspect_ratio: '9x16', script: 'Hi', style: '3D' };
const editing = { video_url: 'https://e.co/v.mp4' };
const persona = { creator_name: 'Ada', gender: 'f', gdown_url: 'https://d.co/x' };
const voice = { original_audio_url: 'https://e.co/a.mp3', name: 'N' };
const htmlAd = { link: ID, style_ids: ['quiz-3q'] };
const scene = (input_text: string) => ({ character: { type: 'avatar', avatar_id: ID }, voice: { type: 'text', input_text } });
const lipsync = { video_inputs: [scene('Hi')] };
const boreal = { prompt: 'fox', duration: 10 };
const h3 = { prompt: 'fox', model: 'boreal-h3', duration: 5 };
const asset = { model_name: 'm', input_params: {} };
const caption = (fields: object) => ({ ...short, caption_setting: fields });

type Row = [label: string, schema: z.ZodType, input: unknown, accepted: boolean];

/** Each limit the spec names, just inside (accepted) and just outside (rejected). */
const LIMITS: Row[] = [
  ['webhook_url of 200', s.AiShortCreate, { ...short, webhook_url: url(200) }, true],
  ['webhook_url of 201', s.AiShortCreate, { ...short, webhook_url: url(201) }, false],
  ['webhook_url null', s.AiShortCreate, { ...short, webhook_url: null }, true],
  ['webhook_url not a URL', s.AiShortCreate, { ...short, webhook_url: 'hook' }, false],
  ['background_music_url of 255', s.AiShortCreate, { ...short, background_music_url: url(255) }, true],
  ['background_music_url of 256', s.AiShortCreate, { ...short, background_music_url: url(256) }, false],
  ['background_music_volume 0', s.AiShortCreate, { ...short, background_music_volume: 0 }, true],
  ['background_music_volume 1', s.AiShortCreate, { ...short, background_music_volume: 1 }, true],
  ['background_music_volume -0.01', s.AiShortCreate, { ...short, background_music_volume: -0.01 }, false],
  ['voiceover_volume 1.01', s.AiEditingCreate, { ...editing, voiceover_volume: 1.01 }, false],
  ['voiceover_volume 0.5', s.AiEditingCreate, { ...editing, voiceover_volume: 0.5 }, true],
  ['AI Short name of 255', s.AiShortCreate, { ...short, name: text(255) }, true],
  ['AI Short name of 256', s.AiShortCreate, { ...short, name: text(256) }, false],
  ['AI Editing video_url of 255', s.AiEditingCreate, { video_url: url(255) }, true],
  ['AI Editing video_url of 256', s.AiEditingCreate, { video_url: url(256) }, false],
  ['lipsync name of 255', s.LipsyncCreate, { ...lipsync, name: text(255) }, true],
  ['lipsync name of 256', s.LipsyncCreate, { ...lipsync, name: text(256) }, false],
  ['creator_name of 255', s.PersonaCreate, { ...persona, creator_name: text(255) }, true],
  ['creator_name of 256', s.PersonaCreate, { ...persona, creator_name: text(256) }, false],
  ['video_scene of 256', s.PersonaCreate, { ...persona, video_scene: text(256) }, false],
  ['keywords of 255', s.PersonaCreate, { ...persona, keywords: text(255) }, true],
  ['keywords of 256', s.PersonaCreate, { ...persona, keywords: text(256) }, false],
  ['voice original_audio_url of 1000', s.VoiceCreate, { ...voice, original_audio_url: url(1000) }, true],
  ['voice original_audio_url of 1001', s.VoiceCreate, { ...voice, original_audio_url: url(1001) }, false],
  ['voice name of 255', s.VoiceCreate, { ...voice, name: text(255) }, true],
  ['voice name of 256', s.VoiceCreate, { ...voice, name: text(256) }, false],
  ['link url of 3000', s.LinkUpdate, { url: text(3000) }, true],
  ['link url of 3001', s.LinkUpdate, { url: text(3001) }, false],
  ['link title of 1000', s.LinkUpdate, { title: text(1000) }, true],
  ['link title of 1001', s.LinkUpdate, { title: text(1001) }, false],
  ['link description of 1001', s.LinkUpdate, { description: text(1001) }, false],
  ['link logo_url of 2000', s.LinkUpdate, { logo_url: text(2000) }, true],
  ['link logo_url of 2001', s.LinkUpdate, { logo_url: text(2001) }, false],
  ['link with params title of 1001', s.LinkWithParams, { title: text(1001), image_urls: ['https://e.co/i.png'] }, false],
  ['scraped link url of 3001', s.LinkCreate, { url: url(3001) }, false],
  ['style_ids: 1', s.HtmlAdCreate, htmlAd, true],
  ['style_ids: 20', s.HtmlAdCreate, { ...htmlAd, style_ids: many(20, 'quiz-3q') }, true],
  ['style_ids: 0', s.HtmlAdCreate, { ...htmlAd, style_ids: [] }, false],
  ['style_ids: 21', s.HtmlAdCreate, { ...htmlAd, style_ids: many(21, 'quiz-3q') }, false],
  ['max_size_mb 5', s.HtmlAdCreate, { ...htmlAd, max_size_mb: 5 }, true],
  ['max_size_mb 15', s.HtmlAdCreate, { ...htmlAd, max_size_mb: 15 }, true],
  ['max_size_mb 4', s.HtmlAdCreate, { ...htmlAd, max_size_mb: 4 }, false],
  ['max_size_mb 16', s.HtmlAdCreate, { ...htmlAd, max_size_mb: 16 }, false],
  ['max_size_mb 7.5', s.HtmlAdCreate, { ...htmlAd, max_size_mb: 7.5 }, false],
  ['ids filter of 100', s.ListQuery, { ids: many(100, ID) }, true],
  ['ids filter of 101', s.ListQuery, { ids: many(101, ID) }, false],
  ['ids filter empty', s.ListQuery, { ids: [] }, false],
  ['ids filter with a non-UUID', s.ListQuery, { ids: ['42'] }, false],
  ['lipsync input_text of 800', s.LipsyncCreate, { video_inputs: [scene(text(800))] }, true],
  ['lipsync input_text of 801', s.LipsyncCreate, { video_inputs: [scene(text(801))] }, false],
  ['lipsync without scenes', s.LipsyncCreate, { video_inputs: [] }, false],
  ['asset aspect_ratio of 128', s.AssetCreate, { ...asset, aspect_ratio: text(128) }, true],
  ['asset aspect_ratio of 129', s.AssetCreate, { ...asset, aspect_ratio: text(129) }, false],
  ['asset resolution of 129', s.AssetCreate, { ...asset, resolution: text(129) }, false],
  ['output_nums 2147483647', s.AssetCreate, { ...asset, output_nums: 2147483647 }, true],
  ['output_nums 2147483648', s.AssetCreate, { ...asset, output_nums: 2147483648 }, false],
  ['output_nums 1.5', s.AssetCreate, { ...asset, output_nums: 1.5 }, false],
  // One rule for client and sandbox: no output makes no asset (the spec gives only the 32-bit range).
  ['output_nums 1', s.AssetCreate, { ...asset, output_nums: 1 }, true],
  ['output_nums 0', s.AssetCreate, { ...asset, output_nums: 0 }, false],
  ['output_nums -2147483648', s.AssetCreate, { ...asset, output_nums: -2147483648 }, false],
  ['Boreal image_url of 2000', s.BorealCreate, { ...boreal, image_url: url(2000) }, true],
  ['Boreal image_url of 2001', s.BorealCreate, { ...boreal, image_url: url(2001) }, false],
  ['Boreal audio_url of 2001', s.BorealCreate, { prompt: 'x', audio_url: url(2001) }, false],
  ['H3 end_image_url of 2001', s.BorealCreate, { ...h3, image_url: url(20), end_image_url: url(2001) }, false],
  ['H3 reference url of 2001', s.BorealCreate, { ...h3, reference_image_urls: [url(2001)] }, false],
  ['H3 9 reference images', s.BorealCreate, { ...h3, reference_image_urls: many(9, url(20)) }, true],
  ['H3 10 reference images', s.BorealCreate, { ...h3, reference_image_urls: many(10, url(20)) }, false],
  ['H3 3 reference videos', s.BorealCreate, { ...h3, reference_video_urls: many(3, url(20)) }, true],
  ['H3 4 reference videos', s.BorealCreate, { ...h3, reference_video_urls: many(4, url(20)) }, false],
  ['H3 3 reference audios', s.BorealCreate, { ...h3, reference_image_urls: [url(20)], reference_audio_urls: many(3, url(20)) }, true],
  ['H3 4 reference audios', s.BorealCreate, { ...h3, reference_image_urls: [url(20)], reference_audio_urls: many(4, url(20)) }, false],
];

/** Text the spec gives no length: our bound (UNSTATED_TEXT_MAX), just inside and just outside; a 10 MB script is refused. */
const PROSE = s.UNSTATED_TEXT_MAX.prose;
const GENERATION = s.UNSTATED_TEXT_MAX.generation;
const textGeneration = (content: string, system?: string) => ({ model_name: 'm', messages: [{ role: 'user', content }], ...(system === undefined ? {} : { system_instruction: system }) });
const UNSTATED: Row[] = [
  [`AI Short script of ${PROSE}`, s.AiShortCreate, { ...short, script: text(PROSE) }, true],
  [`AI Short script of ${PROSE + 1}`, s.AiShortCreate, { ...short, script: text(PROSE + 1) }, false],
  ['AI Short script of 10 MB', s.AiShortCreate, { ...short, script: text(10 * 1024 * 1024) }, false],
  [`Boreal prompt of ${PROSE + 1}`, s.BorealCreate, { ...boreal, prompt: text(PROSE + 1) }, false],
  [`Boreal negative_prompt of ${PROSE + 1}`, s.BorealCreate, { ...boreal, negative_prompt: text(PROSE + 1) }, false],
  [`HTML ad promotion_info of ${PROSE}`, s.HtmlAdCreate, { ...htmlAd, promotion_info: text(PROSE) }, true],
  [`HTML ad promotion_info of ${PROSE + 1}`, s.HtmlAdCreate, { ...htmlAd, promotion_info: text(PROSE + 1) }, false],
  [`HTML ad custom_prompt of ${PROSE + 1}`, s.HtmlAdCreate, { ...htmlAd, custom_prompt: text(PROSE + 1) }, false],
  [`product regen video_prompt of ${PROSE + 1}`, s.ProductRegen, { video_prompt: text(PROSE + 1) }, false],
  [`product image_prompt of ${PROSE + 1}`, s.ProductGenImage, { product_url: url(20), image_prompt: text(PROSE + 1) }, false],
  [`link ai_summary of ${PROSE + 1}`, s.LinkUpdate, { ai_summary: text(PROSE + 1) }, false],
  [`text message of ${GENERATION}`, s.TextCreate, textGeneration(text(GENERATION)), true],
  [`text message of ${GENERATION + 1}`, s.TextCreate, textGeneration(text(GENERATION + 1)), false],
  [`system_instruction of ${GENERATION + 1}`, s.TextCreate, textGeneration('hi', text(GENERATION + 1)), false],
];

/** Limits item 5 and 6: durations per model and resolution. */
const DURATIONS: Row[] = [
  ['boreal 720p 60 s', s.BorealCreate, { prompt: 'x', duration: 60 }, true],
  ['boreal 720p 60.5 s', s.BorealCreate, { prompt: 'x', duration: 60.5 }, false],
  ['boreal 720p 0 s', s.BorealCreate, { prompt: 'x', duration: 0 }, false],
  ['boreal 720p 0.5 s', s.BorealCreate, { prompt: 'x', duration: 0.5 }, true],
  ['boreal 1080p 30 s', s.BorealCreate, { prompt: 'x', resolution: '1080p', duration: 30 }, true],
  ['boreal 1080p 31 s', s.BorealCreate, { prompt: 'x', resolution: '1080p', duration: 31 }, false],
  ['boreal 2k 15 s', s.BorealCreate, { prompt: 'x', resolution: '2k', duration: 15 }, true],
  ['boreal 2k 16 s', s.BorealCreate, { prompt: 'x', resolution: '2k', duration: 16 }, false],
  ['boreal without duration or audio', s.BorealCreate, { prompt: 'x' }, false],
  ['boreal with audio needs no duration', s.BorealCreate, { prompt: 'x', audio_url: url(30) }, true],
  ['boreal-h3 5 s', s.BorealCreate, { ...h3, duration: 5 }, true],
  ['boreal-h3 15 s', s.BorealCreate, { ...h3, duration: 15 }, true],
  ['boreal-h3 4 s', s.BorealCreate, { ...h3, duration: 4 }, false],
  ['boreal-h3 16 s', s.BorealCreate, { ...h3, duration: 16 }, false],
  ['boreal-h3 7.5 s', s.BorealCreate, { ...h3, duration: 7.5 }, false],
  ['boreal-h3 without duration', s.BorealCreate, { prompt: 'x', model: 'boreal-h3' }, false],
];

/** Every Boreal cross-field rule, broken (rejected) beside its lawful twin (accepted). */
const BOREAL_RULE_ROWS: [rule: keyof typeof s.BOREAL_RULES, broken: object, lawful: object][] = [
  ['resolutionOfModel', { ...boreal, resolution: '768p' }, { ...boreal, resolution: '1080p' }],
  ['borealDuration', { prompt: 'x', duration: 61 }, { prompt: 'x', duration: 59 }],
  ['h3Duration', { ...h3, duration: 20 }, { ...h3, duration: 12 }],
  ['audioOnlyBoreal', { ...h3, audio_url: url(30) }, { prompt: 'x', audio_url: url(30) }],
  ['negativePromptOnlyBoreal', { ...h3, negative_prompt: 'blur' }, { ...boreal, negative_prompt: 'blur' }],
  ['endImageOnlyH3', { ...boreal, image_url: url(30), end_image_url: url(30) }, { ...h3, image_url: url(30), end_image_url: url(30) }],
  ['referencesOnlyH3', { ...boreal, reference_image_urls: [url(30)] }, { ...h3, reference_image_urls: [url(30)] }],
  ['endImageNeedsImage', { ...h3, end_image_url: url(30) }, { ...h3, image_url: url(30), end_image_url: url(30) }],
  ['referenceNeedsImageOrVideo', { ...h3, reference_audio_urls: [url(30)] }, { ...h3, reference_video_urls: [url(30)], reference_audio_urls: [url(30)] }],
  ['referenceRenderTakesNoImage', { ...h3, image_url: url(30), reference_image_urls: [url(30)] }, { ...h3, reference_image_urls: [url(30)] }],
  ['h3AspectAuto', { ...h3, aspect_ratio: '16:9' }, { ...h3, aspect_ratio: 'auto' }],
];

const ENUMS: Row[] = [
  ['aspect_ratio 16x9', s.AiShortCreate, { ...short, aspect_ratio: '16x9' }, true],
  ['aspect_ratio 4x5', s.AiShortCreate, { ...short, aspect_ratio: '4x5' }, false],
  ['style Steam punk', s.AiShortCreate, { ...short, style: 'Steam punk' }, true],
  ['style steampunk', s.AiShortCreate, { ...short, style: 'steampunk' }, false],
  ['editing_style glitter_gradient', s.AiEditingCreate, { ...editing, editing_style: 'glitter_gradient' }, true],
  ['editing_style sepia', s.AiEditingCreate, { ...editing, editing_style: 'sepia' }, false],
  ['caption style zoom-punch', s.AiShortCreate, caption({ style: 'zoom-punch' }), true],
  ['caption style zoom', s.AiShortCreate, caption({ style: 'zoom' }), false],
  ['font IBM Plex Mono', s.AiShortCreate, caption({ font_family: 'IBM Plex Mono' }), true],
  ['font Plex Mono without its prefix', s.AiShortCreate, caption({ font_family: 'Plex Mono' }), false],
  ['font_style italic', s.AiShortCreate, caption({ font_style: 'italic' }), true],
  ['font_style bold', s.AiShortCreate, caption({ font_style: 'bold' }), false],
  ['colour #RRGGBBAA', s.AiShortCreate, caption({ text_color: '#FFaa0080' }), true],
  ['colour #RRGGBB', s.AiShortCreate, caption({ text_color: '#FFAA00' }), false],
  ['colour by name', s.AiShortCreate, caption({ background_color: 'red' }), false],
  ['colour with non-hex digits', s.AiShortCreate, caption({ highlight_text_color: '#GG000000' }), false],
  ['caption font_size 70.5', s.AiShortCreate, caption({ font_size: 70.5 }), false],
  ['gender nb', s.PersonaCreate, { ...persona, gender: 'nb' }, true],
  ['gender x', s.PersonaCreate, { ...persona, gender: 'x' }, false],
  ['persona provider-b', s.PersonaCreate, { ...persona, original_voice_provider: 'provider-b' }, true],
  ['voice clone provider-c', s.VoiceCreate, { ...voice, voice_provider: 'provider-c' }, true],
  ['voice clone provider-b', s.VoiceCreate, { ...voice, voice_provider: 'provider-b' }, false],
  ['model_version aurora_v1_fast', s.LipsyncCreate, { ...lipsync, model_version: 'aurora_v1_fast' }, true],
  ['model_version aurora_v3', s.LipsyncCreate, { ...lipsync, model_version: 'aurora_v3' }, false],
  ['ad clone language cb', s.AdCloneCreate, { link: ID, video_url: url(30), language: 'cb' }, true],
  ['ad clone language null', s.AdCloneCreate, { link: ID, video_url: url(30), language: null }, true],
  ['ad clone language xx', s.AdCloneCreate, { link: ID, video_url: url(30), language: 'xx' }, false],
  ['boreal model boreal-h4', s.BorealCreate, { ...boreal, model: 'boreal-h4' }, false],
  ['boreal resolution 4k', s.BorealCreate, { ...boreal, resolution: '4k' }, false],
  ['boreal aspect_ratio 3:4', s.BorealCreate, { ...boreal, aspect_ratio: '3:4' }, true],
  ['boreal aspect_ratio 21:9', s.BorealCreate, { ...boreal, aspect_ratio: '21:9' }, false],
  ['prompt_enhancement none', s.BorealCreate, { ...boreal, prompt_enhancement: 'none' }, true],
  ['prompt_enhancement always', s.BorealCreate, { ...boreal, prompt_enhancement: 'always' }, false],
  ['product type product_avatar', s.ProductGenImage, { product_url: url(30), type: 'product_avatar' }, true],
  ['product type product_video', s.ProductGenImage, { product_url: url(30), type: 'product_video' }, false],
  ['motion_style blank', s.ProductGenVideo, { motion_style: '' }, true],
  ['motion_style dancing', s.ProductGenVideo, { motion_style: 'dancing' }, false],
];

const STRICTNESS: Row[] = [
  ['a request with an unknown field', s.AiShortCreate, { ...short, sript: 'typo' }, false],
  ['a request missing a required field', s.AiShortCreate, { aspect_ratio: '9x16', style: '3D' }, false],
  ['a caption with an unknown field', s.AiShortCreate, caption({ colour: '#00000000' }), false],
  ['a response with an extra field', s.AiShort, { id: ID, status: 'done', new_field: 1 }, true],
  ['a response with nulls for read-only fields', s.AiShort, { id: ID, status: 'done', video_output: null, progress: null }, true],
  ['a response with an unknown status', s.AiShort, { id: ID, status: 'exploded' }, false],
];

describe.each([
  ['spec limits', LIMITS],
  ['durations', DURATIONS],
  ['lengths the spec does not give', UNSTATED],
  ['enums and formats', ENUMS],
  ['strict requests, loose responses', STRICTNESS],
])('%s', (_group, rows) => {
  const named = rows.map(([label, ...rest]): Row => [`${label} → ${rest[2] ? 'accepted' : 'refused'}`, ...rest]);
  test.each(named)('%s', (_label, schema, input, accepted) => {
    expect(schema.safeParse(input).success).toBe(accepted);
  });
});

describe('Boreal cross-field rules', () => {
  test('every rule has a row here', () => {
    expect(BOREAL_RULE_ROWS.map(([rule]) => rule).sort()).toEqual(Object.keys(s.BOREAL_RULES).sort());
  });

  test.each(BOREAL_RULE_ROWS)('%s: broken is rejected on its field, lawful is accepted', (rule, broken, lawful) => {
    const parsed = s.BorealCreate.safeParse(broken);
    expect(parsed.success).toBe(false);
    expect(s.borealViolations(broken as s.BorealCreate).map((v) => v.message)).toContain(
      s.BOREAL_RULES[rule]?.(broken as s.BorealCreate)?.message,
    );
    expect(s.BOREAL_RULES[rule]?.(lawful as s.BorealCreate)).toBeUndefined();
    expect(s.BorealCreate.safeParse(lawful).success).toBe(true);
  });
});
