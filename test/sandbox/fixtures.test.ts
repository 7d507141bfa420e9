import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { FIXTURES } from '../../src/sandbox/catalogues/fixtures.js';
import { FIXTURE_IDS } from '../../src/sandbox/index.js';
import { ManualClock } from '../../src/util/clock.js';
import { HOUR, sandboxFor } from './helpers.js';

const [TASK_A, TASK_B] = FIXTURE_IDS.productTasks;
const [ROBIN, SAM] = FIXTURE_IDS.personas;
const READ_PATH = { product: (id: string) => `/api/product_to_videos/${id}/`, persona: (id: string) => `/api/personas_v2/${id}/` };
const FINISHED = { product: 'video_generated', persona: 'done' };
const statusOf = (body: { status?: string; process_status?: string }) => body.status ?? body.process_status;

describe('a fresh sandbox has the documented fixtures', () => {
  test.each(FIXTURES.map((f) => [f.family, f.id] as const))('%s %s is there, finished, with a fixed id', async (family, id) => {
    const t = await sandboxFor();
    const answer = await t.get(READ_PATH[family](id));
    expect(answer.status).toBe(200);
    expect(answer.body.id).toBe(id);
    expect(statusOf(answer.body)).toBe(FINISHED[family]);
  });

  test('a fixture task serves its video and photo, and an avatar its voice', async () => {
    const t = await sandboxFor();
    const task = (await t.get(READ_PATH.product(TASK_A))).body;
    const video = await fetch(task.generated_video_url);
    expect(video.status).toBe(200);
    expect(video.headers.get('content-type')).toContain('video/mp4');
    expect((await fetch(task.generated_photo_url)).headers.get('content-type')).toContain('image/png');
    expect(task.credits_used).toBe(6);
    const avatar = (await t.get(READ_PATH.persona(SAM))).body;
    expect(avatar.matching_voice_non_null).toBe(FIXTURE_IDS.personaVoices[1]);
    expect((await fetch(avatar.lipsync_input_url)).status).toBe(200);
  });

  test('fixtures are not counted, charged or listed as jobs the sandbox made', async () => {
    const t = await sandboxFor({ credits: 500 });
    expect(t.sandbox.jobs()).toEqual([]);
    expect((await t.get('/__sandbox/jobs')).body).toEqual([]);
    expect(t.sandbox.stats().created).toEqual({});
    expect((await t.get('/api/remaining_credits/')).body).toEqual({ remaining_credits: 500 });
  });

  test.each([
    ['a product task id one past the fixtures', READ_PATH.product('5eed0000-0000-4000-8000-000000000003'), 'ProductToVideo'],
    ['an avatar id used as a product task', READ_PATH.product(ROBIN), 'ProductToVideo'],
    ['a product task id used as an avatar', READ_PATH.persona(TASK_A), 'PersonaV2'],
  ])('unknown ids stay unknown: %s is 404', async (_name, path, model) => {
    const t = await sandboxFor();
    expect(await t.get(path)).toMatchObject({ status: 404, body: { detail: `No ${model} matches the given query.` } });
  });
});

describe('acting on fixtures', () => {
  test('a fixture task is regenerated like any finished task: a new task, charged 1, finishing with a video', async () => {
    const t = await sandboxFor();
    const regen = await t.post(`/api/product_to_videos/${TASK_B}/regen_video/`, { video_prompt: 'orbit shot' });
    expect(regen.status).toBe(200);
    expect(regen.body).toMatchObject({ regen_source_id: TASK_B, regen_type: 'regen_video', video_prompt: 'orbit shot' });
    expect(regen.body.id).not.toBe(TASK_B);
    t.advance(HOUR);
    expect((await t.get(READ_PATH.product(regen.body.id))).body.status).toBe('video_generated');
    expect(t.sandbox.stats().credits).toMatchObject({ charged: 1, balance: 9999 });
    expect(t.sandbox.jobs().map((j) => j.kind)).toEqual(['product_regen']);
  });

  test('a deleted fixture avatar is gone: a second delete and a read are 404', async () => {
    const t = await sandboxFor();
    expect((await t.call('DELETE', `/api/personas/${ROBIN}/`)).status).toBe(204);
    expect((await t.call('DELETE', `/api/personas/${ROBIN}/`)).status).toBe(404);
    expect((await t.get(READ_PATH.persona(ROBIN))).status).toBe(404);
    expect((await t.get(READ_PATH.persona(SAM))).status).toBe(200);
  });
});

describe('fixtures and the journal', () => {
  test('a deletion and a regen of fixtures survive a restart; a fresh journal has every fixture again', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const journal = join(mkdtempSync(join(tmpdir(), 'reelpipe-fixtures-')), 'service.jsonl');
    const first = await sandboxFor({ clock, journal });
    expect((await first.call('DELETE', `/api/personas/${ROBIN}/`)).status).toBe(204);
    const regen = (await first.post(`/api/product_to_videos/${TASK_A}/regen_video/`, { video_prompt: 'orbit shot' })).body.id as string;
    await first.sandbox.close();

    const second = await sandboxFor({ clock, journal });
    expect((await second.get(READ_PATH.persona(ROBIN))).status).toBe(404);
    expect((await second.get(READ_PATH.persona(SAM))).status).toBe(200);
    expect((await second.get(READ_PATH.product(regen))).body.regen_source_id).toBe(TASK_A);
    expect((await second.get(READ_PATH.product(TASK_A))).body.status).toBe('video_generated');

    const fresh = await sandboxFor({ journal: join(mkdtempSync(join(tmpdir(), 'reelpipe-fixtures-')), 'service.jsonl') });
    expect((await fresh.get(READ_PATH.persona(ROBIN))).status).toBe(200);
  });
});
