import { describe, expect, test } from 'vitest';
import { sandboxFor, makeLink, DAY, HOUR, type TestSandbox } from './helpers.js';
import { FIXTURE_IDS } from '../../src/sandbox/index.js';

/**
 * Each resource walks its own state set from the spec, at a high speed on a manual clock: the
 * statuses a poller sees come in the spec's order, progress never goes back, outputs appear only
 * at the end, and the recorded history is exactly the expected walk.
 */
const SPEED = 1000;
/** A finished avatar every sandbox has (docs/sandbox.md, Fixtures): lipsyncs speak with real avatars only. */
const AVATAR = FIXTURE_IDS.personas[0];

interface Walk {
  name: string;
  create: (t: TestSandbox) => Promise<string>;
  read: string;
  statusField?: string;
  output: string;
  walk: string[];
  /** The resource shows progress. @default true */
  progress?: boolean;
}

const FINAL = new Set(['done', 'failed', 'rejected', 'video_generated']);

const walks: Walk[] = [
  { name: 'AI Short', read: '/api/ai_shorts/', output: 'video_output', walk: ['pending', 'in_queue', 'running', 'done'],
    create: async (t) => (await t.post('/api/ai_shorts/', { aspect_ratio: '9x16', script: 'One two three four five six seven.', style: '3D' })).body.id },
  { name: 'AI Editing', read: '/api/ai_editing/', output: 'video_output', walk: ['pending', 'in_queue', 'running', 'done'],
    create: async (t) => (await t.post('/api/ai_editing/', { video_url: 'https://v.example.com/a.mp4#t=0,20' })).body.id },
  { name: 'Boreal', read: '/api/boreal/', output: 'video_output', walk: ['pending', 'in_queue', 'running', 'done'],
    create: async (t) => (await t.post('/api/boreal/', { prompt: 'Fox', duration: 10 })).body.id },
  { name: 'ad clone', read: '/api/ads_clone/', output: 'video_output', walk: ['pending', 'in_queue', 'running', 'done'],
    create: async (t) => (await t.post('/api/ads_clone/', { link: await makeLink(t), video_url: 'https://v.example.com/r.mp4' })).body.id },
  { name: 'lipsync', read: '/api/lipsyncs_v2/', output: 'output', walk: ['pending', 'in_queue', 'running', 'done'],
    create: async (t) => (await t.post('/api/lipsyncs_v2/', { video_inputs: [{ character: { type: 'avatar', avatar_id: AVATAR }, voice: { type: 'text', input_text: 'Hello there, friend.' } }] })).body.id },
  { name: 'HTML ads', read: '/api/html_interactive_ads/', output: 'ads', walk: ['pending', 'running', 'done'],
    create: async (t) => (await t.post('/api/html_interactive_ads/', { link: await makeLink(t), style_ids: ['quiz-3q', 'swipe-deck'] })).body.id },
  { name: 'text generation', read: '/sse/text_generator/', output: 'response_text', progress: false, walk: ['pending', 'running', 'done'],
    create: async (t) => (await t.post('/api/text_generator/', { model_name: 'm', messages: [{ role: 'user', content: 'Hi' }] })).body.id },
  { name: 'asset', read: '/api/asset_generator/', output: 'assets', progress: false, walk: ['initializing', 'generating', 'done'],
    create: async (t) => (await t.post('/api/asset_generator/', { model_name: 'sandbox-image-v1', input_params: { prompt: 'cat' } })).body.id },
  { name: 'custom template (create and render)', read: '/api/custom_template_jobs/', output: 'video_output', walk: ['pending', 'in_queue', 'running', 'done'],
    create: async (t) => (await t.post('/api/custom_template_jobs/', { template_id: 'vid_2b81e4d0' })).body.id },
  { name: 'custom avatar', read: '/api/personas_v2/', statusField: 'process_status', output: 'lipsync_input_url', progress: false,
    walk: ['pending', 'processing', 'voice_creating', 'video_validating', 'crop_and_matte', 'reviewing', 'done'],
    create: async (t) => (await t.post('/api/personas_v2/', { creator_name: 'Ada', gender: 'f', gdown_url: 'https://d.example.com/a' })).body.id },
];

/**
 * Progress read on the way, last read final: it never goes back, and it moves before the end (a
 * progress stuck at 0 until the final state fails this).
 */
function expectProgressing(progress: number[]): void {
  progress.forEach((p, i) => expect(p, `progress ${progress.join(', ')}`).toBeGreaterThanOrEqual(progress[i - 1] ?? 0));
  const beforeEnd = progress.slice(0, -1);
  expect(beforeEnd.some((p, i) => i > 0 && p > beforeEnd[i - 1]!), `progress ${progress.join(', ')} never moved before the end`).toBe(true);
}

/** Polls every `stepMs` of sandbox time until a final state; returns the distinct statuses seen and progress read. */
async function poll(t: TestSandbox, path: string, field: string, output: string, stepMs: number) {
  const seen: string[] = [];
  const progress: number[] = [];
  for (let i = 0; i < 20_000; i += 1) {
    const { body } = await t.get(path);
    const status = body[field] as string;
    if (seen[seen.length - 1] !== status) seen.push(status);
    if (body.progress !== undefined) progress.push(Number(body.progress));
    const hasOutput = Array.isArray(body[output]) ? body[output].length > 0 : Boolean(body[output]);
    expect(hasOutput, `${output} at ${status}`).toBe(FINAL.has(status) && status !== 'failed' && status !== 'rejected');
    if (FINAL.has(status)) return { seen, body, progress };
    t.advance(stepMs);
  }
  throw new Error('never reached a final state');
}

describe('life cycles walk the spec states at high speed', () => {
  test.each(walks)('$name: $walk', async (w) => {
    const t = await sandboxFor({ speed: SPEED });
    const id = await w.create(t);
    const step = w.name === 'custom avatar' ? 200 : 0.5; // the review alone lasts 130 s at this speed
    const { seen, body, progress } = await poll(t, `${w.read}${id}/`, w.statusField ?? 'status', w.output, step);
    if (w.progress !== false) expectProgressing(progress);
    expect(seen.every((s) => w.walk.includes(s))).toBe(true);
    expect(seen.map((s) => w.walk.indexOf(s))).toEqual([...seen.map((s) => w.walk.indexOf(s))].sort((a, b) => a - b));
    expect(seen[seen.length - 1]).toBe('done');
    expect(body.failed_reason ?? '').toBe('');
    const history = t.sandbox.jobs().find((j) => j.id === id)!.history.map((h) => h.status);
    expect(history).toEqual(w.walk);
  });

  /** Reads `path` every `stepMs` until `status` shows, recording progress; the last read is at that status. */
  async function until(t: TestSandbox, path: string, status: string, stepMs: number, progress: number[]) {
    for (let i = 0; i < 20_000; i += 1) {
      const { body } = await t.get(path);
      progress.push(Number(body.progress));
      if (body.status === status) return body;
      t.advance(stepMs);
    }
    throw new Error(`never reached ${status}`);
  }

  test('product walks initializing → image_generating → image_generated → video_generating → video_generated', async () => {
    const t = await sandboxFor({ speed: SPEED });
    const id = (await t.post('/api/product_to_videos/gen_image/', { product_url: 'https://i.example.com/p.png' })).body.id;
    const path = `/api/product_to_videos/${id}/`;
    const progress: number[] = [];
    const rested = await until(t, path, 'image_generated', 1, progress);
    expect(rested.generated_photo_url).toMatch(/\/cdn\//);
    expect(rested.generated_video_url).toBeNull();
    t.advance(60_000); // resting: nothing moves until gen_video
    expect((await t.get(path)).body).toMatchObject({ status: 'image_generated', progress: rested.progress });
    expect(rested.progress).toBeGreaterThan(0);
    expect(rested.progress).toBeLessThan(100);
    expect((await t.post(`${path}gen_video/`, { video_prompt: 'turn' })).body.status).toBe('video_generating');
    const { seen, progress: onward } = await poll(t, path, 'status', 'generated_video_url', 5);
    expect(seen).toEqual(['video_generating', 'video_generated']);
    expectProgressing([...progress, ...onward]);
    expect(onward.slice(0, -1).some((p) => p > rested.progress)).toBe(true); // the continuation moves on from the rest
    const regen = (await t.post(`${path}regen_video/`, { video_prompt: 'slower' })).body;
    expect(regen).toMatchObject({ status: 'initializing', regen_source_id: id, regen_type: 'regen_video' });
    expectProgressing((await poll(t, `/api/product_to_videos/${regen.id}/`, 'status', 'generated_video_url', 5)).progress);
    const history = (jobId: string) => t.sandbox.jobs().find((j) => j.id === jobId)!.history.map((h) => h.status);
    expect(history(id)).toEqual(['initializing', 'image_generating', 'image_generated', 'video_generating', 'video_generated']);
    expect(history(regen.id)).toEqual(['initializing', 'video_generating', 'video_generated']);
  });

  test('template preview then render: the preview fills in while pending, the render walks on', async () => {
    const t = await sandboxFor({ speed: SPEED });
    const id = (await t.post('/api/custom_template_jobs/preview_async/', { template_id: 'vid_2b81e4d0' })).body.id;
    const path = `/api/custom_template_jobs/${id}/`;
    expect((await t.get(path)).body.preview).toBeNull();
    const progress: number[] = [];
    for (let i = 0; i < 100 && !(await t.get(path)).body.preview; i += 1) {
      progress.push(Number((await t.get(path)).body.progress));
      t.advance(1);
    }
    t.advance(60_000);
    const previewed = (await t.get(path)).body;
    expect(previewed).toMatchObject({ status: 'pending', video_output: null });
    expect(previewed.preview).toMatch(/\/cdn\//);
    expect(previewed.progress).toBeGreaterThan(0);
    expect(previewed.progress).toBeLessThan(100);
    await t.post(`${path}render/`, {});
    const { seen, progress: onward } = await poll(t, path, 'status', 'video_output', 1);
    expect(seen[seen.length - 1]).toBe('done');
    expectProgressing([...progress, previewed.progress, ...onward]);
    expect(onward.slice(0, -1).some((p) => p > previewed.progress)).toBe(true);
    expect(t.sandbox.jobs().find((j) => j.id === id)!.history.map((h) => h.status)).toEqual(['pending', 'in_queue', 'running', 'done']);
  });

  const productFailure: Walk = {
    name: 'product', read: '/api/product_to_videos/', output: 'generated_photo_url', walk: [],
    create: async (t) => (await t.post('/api/product_to_videos/gen_image/', { product_url: 'https://i.example.com/p.png' })).body.id,
  };
  test.each([...walks, productFailure])('$name with jobFailure at rate 1 ends failed with a reason and no output', async (w) => {
    const t = await sandboxFor({ speed: SPEED, faults: { rates: { jobFailure: 1 } } });
    const id = await w.create(t);
    t.advance(3 * DAY);
    const { body } = await t.get(`${w.read}${id}/`);
    expect(body[w.statusField ?? 'status']).toBe('failed');
    expect(body.failed_reason).toMatch(/\S/);
    const output = body[w.output];
    expect(Array.isArray(output) ? output : [output].filter((o) => o !== null && o !== undefined)).toEqual([]);
    if (w.name === 'product') expect(body.generated_video_url).toBeNull();
  });

  test('a product gen_video under jobFailure fails with the fault reason and no video', async () => {
    const t = await sandboxFor({ speed: SPEED, faults: { rates: { jobFailure: 0.5 } }, seed: 3 });
    const id = await firstProductWithImage(t);
    await t.post(`/api/product_to_videos/${id}/gen_video/`, {});
    t.advance(HOUR);
    const done = (await t.get(`/api/product_to_videos/${id}/`)).body;
    // Seed 3 draws a failure for this gen_video: the draws are reproducible by seed.
    expect(done).toMatchObject({ status: 'failed', failed_reason: expect.stringMatching(/jobFailure/), generated_video_url: null });
  });

  test.each([
    ['jobFailure', 'failed'],
    ['jobRejection', 'rejected'],
  ])('with %s at rate 1 a video job ends %s with a failed_reason', async (fault, end) => {
    const t = await sandboxFor({ speed: SPEED, faults: { rates: { [fault]: 1 } } });
    const id = (await t.post('/api/boreal/', { prompt: 'Fox', duration: 5 })).body.id;
    const { seen, body } = await poll(t, `/api/boreal/${id}/`, 'status', 'video_output', 1);
    expect(seen[seen.length - 1]).toBe(end);
    expect(body.failed_reason).not.toBe('');
    expect(body.video_output).toBeNull();
  });
});

/** Makes product tasks until one gets its image (jobFailure may fail some), then returns its id. */
async function firstProductWithImage(t: TestSandbox): Promise<string> {
  for (let i = 0; i < 50; i += 1) {
    const id = (await t.post('/api/product_to_videos/gen_image/', { product_url: `https://i.example.com/${i}.png` })).body.id as string;
    t.advance(HOUR);
    if ((await t.get(`/api/product_to_videos/${id}/`)).body.status === 'image_generated') return id;
  }
  throw new Error('no product image made it');
}

describe('render slots', () => {
  test('beyond capacity jobs wait in_queue and start first come, first served', async () => {
    const t = await sandboxFor({ speed: 1, capacity: 1 });
    const make = async () => (await t.post('/api/boreal/', { prompt: 'Fox', duration: 10 })).body.id as string;
    const [a, b, c] = [await make(), await make(), await make()];
    const status = async (id: string) => (await t.get(`/api/boreal/${id}/`)).body.status as string;
    t.advance(2_500); // past pending (1 s) and dispatch (1 s)
    expect([await status(a), await status(b), await status(c)]).toEqual(['running', 'in_queue', 'in_queue']);
    t.advance(60_000); // a renders 10 s × 6
    expect([await status(a), await status(b), await status(c)]).toEqual(['done', 'running', 'in_queue']);
    t.advance(60_000);
    expect([await status(b), await status(c)]).toEqual(['done', 'running']);
    t.advance(60_000);
    expect(await status(c)).toBe('done');
  });

  test('the stats count the jobs alive (rendering or queued) now and the most at once, for tests of a client\'s limit', async () => {
    const t = await sandboxFor({ speed: 1, capacity: 1 });
    const make = () => t.post('/api/boreal/', { prompt: 'Fox', duration: 10 });
    await make();
    await make();
    t.advance(2_500);
    expect(t.sandbox.stats().alive).toEqual({ now: 2, peak: 2 });
    t.advance(60_000); // the first ends; the second renders
    await make();
    expect(t.sandbox.stats().alive).toEqual({ now: 2, peak: 2 });
    t.advance(200_000);
    expect(t.sandbox.stats().alive).toEqual({ now: 0, peak: 2 });
  });

  test('work that needs no slot (avatars, text) is not held up by a full farm', async () => {
    const t = await sandboxFor({ speed: 1, capacity: 1 });
    await t.post('/api/boreal/', { prompt: 'Fox', duration: 60 });
    const text = (await t.post('/api/text_generator/', { model_name: 'm', messages: [{ role: 'user', content: 'Hi' }] })).body.id;
    t.advance(10_000);
    expect((await t.get(`/sse/text_generator/${text}/`)).body.status).toBe('done');
  });
});
