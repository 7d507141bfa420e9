import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ApiBadRequestError, ApiNotFoundError, createClient, OPERATION_NAMES, type OperationName, type ServiceClient } from '../../src/api/index.js';
import { HOUR, sandboxFor, type TestSandbox } from './helpers.js';
import { FIXTURE_IDS } from '../../src/sandbox/index.js';

/**
 * The service client (src/api) against the sandbox: every operation of the client's table, its
 * answers checked by the client's own response schemas, early states and final states alike.
 */
const GHOST = '00000000-0000-4000-8000-000000000000';
/** A finished avatar every sandbox has (docs/sandbox.md, Fixtures): lipsyncs speak with real avatars only. */
const AVATAR = FIXTURE_IDS.personas[0];
let t: TestSandbox;
let client: ServiceClient;
const ids: Record<string, string> = {};

beforeAll(async () => {
  t = await sandboxFor({ credits: 100_000, speed: 10 });
  client = createClient({ baseUrl: t.sandbox.url, apiId: 'compat-id', apiKey: 'compat-key', retry: { maxAttempts: 1 } });
});
afterAll(async () => {
  await client.close();
});

const later = () => t.advance(HOUR);
const scene = { character: { type: 'avatar' as const, avatar_id: AVATAR }, voice: { type: 'text' as const, input_text: 'Hello there.' } };

/** In order: later operations use what earlier ones made. */
const steps: [OperationName, () => Promise<unknown>][] = [
  ['credits.remaining', async () => expect((await client.credits.remaining()).remaining_credits).toBe(100_000)],
  ['links.create', async () => (ids.link = (await client.links.create({ url: 'https://shop.example.com/p/lamp' })).id)],
  ['links.createWithParams', async () => (ids.ownLink = (await client.links.createWithParams({ title: 'Lamp', image_urls: ['https://i.example.com/l.png'] })).id)],
  ['links.update', async () => expect((await client.links.update(ids.ownLink!, { title: 'Desk lamp' })).title).toBe('Desk lamp')],
  ['links.get', async () => expect((await client.links.get(ids.link!)).image_urls).toHaveLength(3)],
  ['aiShorts.create', async () => (ids.short = (await client.aiShorts.create({ aspect_ratio: '9x16', script: 'A lamp for late nights.', style: 'Cinematic' })).id)],
  ['aiShorts.get', () => client.aiShorts.get(ids.short!)],
  ['aiShorts.list', async () => expect(await client.aiShorts.list({ ids: [ids.short!] })).toHaveLength(1)],
  ['aiEditing.create', async () => (ids.editing = (await client.aiEditing.create({ video_url: 'https://v.example.com/in.mp4#t=0,20', editing_style: 'paper' })).id)],
  ['aiEditing.get', () => client.aiEditing.get(ids.editing!)],
  ['productToVideos.genImage', async () => (ids.task = (await client.productToVideos.genImage({ product_url: 'https://i.example.com/lamp.png' })).id)],
  ['productToVideos.genVideo', async () => (later(), client.productToVideos.genVideo(ids.task!, { video_prompt: 'slow pan' }))],
  ['productToVideos.regen', async () => (later(), (ids.regen = (await client.productToVideos.regen(ids.task!, { video_prompt: 'faster' })).id))],
  ['productToVideos.get', async () => expect((await client.productToVideos.get(ids.regen!)).regen_source_id).toBe(ids.task)],
  ['personas.create', async () => (ids.persona = (await client.personas.create({ creator_name: 'Ada', gender: 'f', gdown_url: 'https://d.example.com/a' })).id)],
  ['personas.get', async () => expect((await client.personas.get(ids.persona!)).process_status).toBe('pending')],
  ['personas.delete', () => client.personas.delete(ids.persona!)],
  ['voices.create', async () => expect((await client.voices.create({ original_audio_url: 'https://a.example.com/v.mp3', name: 'Narrator' })).accents).toHaveLength(1)],
  ['htmlAds.styles', async () => expect((await client.htmlAds.styles()).length).toBeGreaterThan(20)],
  ['htmlAds.create', async () => (ids.ads = (await client.htmlAds.create({ link: ids.link!, style_ids: ['carousel', 'quiz-3q'] })).id)],
  ['htmlAds.get', () => client.htmlAds.get(ids.ads!)],
  ['htmlAds.list', async () => expect(await client.htmlAds.list({ ids: [ids.ads!] })).toHaveLength(1)],
  ['lipsyncs.create', async () => (ids.lipsync = (await client.lipsyncs.create({ video_inputs: [scene], model_version: 'aurora_v1' })).id)],
  ['lipsyncs.get', () => client.lipsyncs.get(ids.lipsync!)],
  ['lipsyncs.list', async () => expect(await client.lipsyncs.list({ ids: [ids.lipsync!], created_after: '2020-01-01T00:00:00Z' })).toHaveLength(1)],
  ['boreal.create', async () => (ids.boreal = (await client.boreal.create({ prompt: 'A lamp turns on', model: 'boreal-h3', duration: 6, reference_image_urls: ['https://i.example.com/l.png'] })).id)],
  ['boreal.get', () => client.boreal.get(ids.boreal!)],
  ['adClones.create', async () => (ids.clone = (await client.adClones.create({ link: ids.link!, video_url: 'https://v.example.com/ref.mp4' })).id)],
  ['adClones.get', () => client.adClones.get(ids.clone!)],
  ['adClones.list', async () => expect((await client.adClones.list()).map((c) => c.id)).toContain(ids.clone)],
  ['textGenerator.create', async () => (ids.text = (await client.textGenerator.create({ model_name: 'm', messages: [{ role: 'user', content: 'Tagline?' }] })).id)],
  ['textGenerator.get', () => client.textGenerator.get(ids.text!)],
  ['assetGenerator.schemas', async () => expect(await client.assetGenerator.schemas(['sandbox-image-v1'])).toHaveLength(1)],
  ['assetGenerator.create', async () => (ids.asset = (await client.assetGenerator.create({ model_name: 'sandbox-image-v1', input_params: { prompt: 'lamp' } })).id)],
  ['assetGenerator.get', () => client.assetGenerator.get(ids.asset!)],
  ['musics.list', async () => expect((await client.musics.list({ page: 2, page_size: 5 })).results).toHaveLength(5)],
  ['customTemplates.list', async () => expect(await client.customTemplates.list()).toHaveLength(3)],
  ['customTemplates.get', async () => expect(Object.keys((await client.customTemplates.get('vid_2b81e4d0')).variables)).toContain('offer')],
  ['customTemplates.preview', async () => (ids.preview = (await client.customTemplates.preview({ template_id: 'vid_2b81e4d0', variables: { offer: '2 for 1' } })).id)],
  ['customTemplates.createAndRender', async () => (ids.render = (await client.customTemplates.createAndRender({ template_id: 'vid_2b81e4d0' })).id)],
  ['customTemplates.render', async () => (later(), client.customTemplates.render(ids.preview!, {}))],
  ['customTemplates.getJob', () => client.customTemplates.getJob(ids.render!)],
];

describe('the service client works against the sandbox', () => {
  test('the table covers every client operation', () => {
    expect(steps.map(([name]) => name).sort()).toEqual([...OPERATION_NAMES].sort());
  });

  test.each(steps)('%s', async (_name, step) => {
    await step();
  });

  test('finished jobs parse too, with their outputs', async () => {
    t.advance(HOUR * 10);
    expect((await client.aiShorts.get(ids.short!)).video_output).toMatch(/\/cdn\//);
    expect((await client.aiEditing.get(ids.editing!)).status).toBe('done');
    expect((await client.productToVideos.get(ids.regen!)).generated_video_url).toMatch(/\/cdn\//);
    expect((await client.htmlAds.get(ids.ads!)).ads?.map((ad) => ad.style_id)).toEqual(['carousel', 'quiz-3q']);
    expect((await client.lipsyncs.get(ids.lipsync!)).output).toMatch(/\/cdn\//);
    expect((await client.boreal.get(ids.boreal!)).credits_used).toBe(2.5);
    expect((await client.adClones.get(ids.clone!)).video_output).toMatch(/\/cdn\//);
    expect((await client.textGenerator.get(ids.text!)).response_text).toMatch(/Tagline/);
    expect((await client.assetGenerator.get(ids.asset!)).assets).toHaveLength(1);
    expect((await client.customTemplates.getJob(ids.preview!)).video_output).toMatch(/\/cdn\//);
  });

  test('sandbox errors become the client error classes', async () => {
    await expect(client.aiShorts.get(GHOST)).rejects.toBeInstanceOf(ApiNotFoundError);
    const refused = await client.htmlAds.create({ link: GHOST, style_ids: ['carousel'] }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApiBadRequestError);
    expect((refused as ApiBadRequestError).fieldErrors).toEqual({ link: ['Invalid link ID'] });
  });
});
