import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { beforeAll, describe, expect, test } from 'vitest';
import { InvalidInputError } from '../../src/errors.js';
import { FIXTURE_IDS, startSandbox } from '../../src/sandbox/index.js';
import { ManualClock } from '../../src/util/clock.js';
import { DAY, HOUR, makeLink, sandboxFor, type TestSandbox } from './helpers.js';

/** A finished avatar every sandbox has (docs/sandbox.md, Fixtures): lipsyncs speak with real avatars only. */
const AVATAR = FIXTURE_IDS.personas[0];
const SHORT = { aspect_ratio: '9x16', script: 'A lamp for late nights, kept across restarts.', style: '3D' };
const LIPSYNC = { video_inputs: [{ character: { type: 'avatar', avatar_id: AVATAR }, voice: { type: 'text', input_text: 'Hello there, friend.' } }] };

const freshJournal = () => join(mkdtempSync(join(tmpdir(), 'reelpipe-journal-')), 'service.jsonl');

/** A logger whose warnings the test can read. */
function capturingLogger() {
  const lines: string[] = [];
  return { lines, logger: pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) }) };
}

/** Every read of every job, with this sandbox's address taken out so two sandboxes compare. */
async function readAll(t: TestSandbox, paths: string[]): Promise<unknown[]> {
  const bodies = await Promise.all(paths.map(async (path) => (await t.get(path)).body));
  return JSON.parse(JSON.stringify(bodies).replaceAll(t.sandbox.url, 'SANDBOX')) as unknown[];
}

describe('a sandbox restarted on its journal', () => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const journal = freshJournal();
  const ids: Record<string, string> = {};
  let first: TestSandbox;
  let second: TestSandbox;
  let paths: string[];
  let before: unknown[];

  beforeAll(async () => {
    first = await sandboxFor({ clock, journal, credits: 1000 });
    ids.short = (await first.post('/api/ai_shorts/', SHORT)).body.id;
    ids.link = await makeLink(first);
    await first.call('PUT', `/api/links/${ids.link}/`, { title: 'Night Lamp' });
    ids.ads = (await first.post('/api/html_interactive_ads/', { link: ids.link, style_ids: ['quiz-3q', 'carousel'] })).body.id;
    ids.lipsync = (await first.post('/api/lipsyncs_v2/', LIPSYNC)).body.id;
    ids.product = (await first.post('/api/product_to_videos/gen_image/', { product_url: 'https://img.example.com/p.png' })).body.id;
    ids.persona = (await first.post('/api/personas_v2/', { creator_name: 'Ada', gender: 'f', gdown_url: 'https://d.example.com/a' })).body.id;
    first.advance(20_000);
    expect((await first.post(`/api/product_to_videos/${ids.product}/gen_video/`, { video_prompt: 'turn slowly' })).status).toBe(200);
    expect((await first.call('DELETE', `/api/personas/${ids.persona}/`)).status).toBe(204);
    first.advance(3_000);
    paths = [
      `/api/ai_shorts/${ids.short}/`, `/api/links/${ids.link}/`, `/api/html_interactive_ads/${ids.ads}/`,
      `/api/lipsyncs_v2/${ids.lipsync}/`, `/api/product_to_videos/${ids.product}/`,
    ];
    before = await readAll(first, paths);
    await first.sandbox.close();
    // A faster sandbox on the same journal: journalled jobs keep their own timings.
    second = await sandboxFor({ clock, journal, credits: 5, speed: 100 });
  });

  test('every job reads exactly as it did, at the same instant', async () => {
    expect(await readAll(second, paths)).toEqual(before);
    expect((await second.get(`/api/personas_v2/${ids.persona}/`)).status).toBe(404);
    expect(second.sandbox.jobs().map((j) => j.id)).toEqual(first.sandbox.jobs().map((j) => j.id));
  });

  test('the balance and the counts of jobs carry over; the credits option is ignored', async () => {
    const [a, b] = [first.sandbox.stats(), second.sandbox.stats()];
    expect(b.created).toEqual(a.created);
    expect(b.created).toMatchObject({ ai_short: 1, link: 1, html_ads: 1, lipsync_v2: 1, product_image: 1, product_video: 1, persona: 1 });
    expect(b.credits).toEqual(a.credits);
    expect(b.credits.balance).toBeLessThan(1000);
    expect((await second.get('/api/remaining_credits/')).body).toEqual({ remaining_credits: a.credits.balance });
    // Requests count since this start: only this test's reads, none of the journalled creations.
    expect(Object.keys(b.requests).filter((key) => !key.startsWith('GET '))).toEqual([]);
  });

  test('life cycles go on from their recorded timestamps to their final states, outputs served', async () => {
    second.advance(HOUR);
    const reads = await Promise.all(paths.map((path) => second.get(path)));
    expect(reads.map((r) => r.body.status)).toEqual(['done', undefined, 'done', 'done', 'video_generated']);
    expect(reads[2]!.body.ads.map((ad: { status: string }) => ad.status)).toEqual(['done', 'done']);
    const html = await fetch(reads[2]!.body.ads[0].url);
    expect(await html.text()).toContain('Night Lamp'); // built from the link as updated before the restart
    const video = await fetch(reads[0]!.body.video_output);
    expect(video.status).toBe(200);
    expect((await video.arrayBuffer()).byteLength).toBeGreaterThan(1000);
    const short = second.sandbox.jobs().find((j) => j.id === ids.short)!;
    const at = (status: string) => Date.parse(short.history.find((h) => h.status === status)!.at);
    expect(at('done') - at('running')).toBe(4 * reads[0]!.body.duration * 1000); // speed 1's timing, not speed 100's
  });

  test('new ids never repeat journalled ones, and a repeated body is a duplicate across the restart', async () => {
    const old = new Set(JSON.stringify(first.sandbox.jobs()).match(/[0-9a-f]{8}-[0-9a-f-]{27}/g));
    const again = await second.post('/api/ai_shorts/', SHORT);
    expect(again.status).toBe(201);
    expect(old.has(again.body.id)).toBe(false);
    expect(old.has(again.body.media_job)).toBe(false);
    expect(second.sandbox.stats().duplicates).toEqual({ total: 1, byKind: { ai_short: 1 } });
  });

  test('a third start replays what the second added', async () => {
    await second.sandbox.close();
    const third = await sandboxFor({ clock, journal });
    expect(third.sandbox.jobs()).toEqual(second.sandbox.jobs());
    expect(third.sandbox.stats().duplicates.total).toBe(1);
  });
});

describe('journal files', () => {
  async function journalWithTwoJobs(): Promise<{ file: string; clock: ManualClock; ids: string[] }> {
    const file = freshJournal();
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const t = await sandboxFor({ clock, journal: file });
    const ids = [(await t.post('/api/ai_shorts/', SHORT)).body.id, (await t.post('/api/boreal/', { prompt: 'A fox', duration: 5 })).body.id];
    await t.sandbox.close();
    return { file, clock, ids };
  }

  test('a new journal starts with a versioned header and one line per state change', async () => {
    const { file } = await journalWithTwoJobs();
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line));
    expect(lines[0]).toMatchObject({ journal: 'reelpipe-sandbox', version: 1, seed: 1, credits: 10_000, capacity: 4 });
    expect(lines.slice(1).map((l) => `${l.method} ${l.path} ${l.jobs[0].kind}`)).toEqual(['POST /api/ai_shorts/ ai_short', 'POST /api/boreal/ boreal']);
    expect(lines[1].jobs[0].phases.map(([status]: [string]) => status)).toEqual(['pending', 'in_queue', 'running']);
  });

  test('a torn last line is skipped with a warning, the rest replayed, and later lines land on their own', async () => {
    const { file, clock, ids } = await journalWithTwoJobs();
    appendFileSync(file, '{"at":"2026-01-01T00:00:00.000Z","method":"POST","pa');
    const { lines, logger } = capturingLogger();
    const t = await sandboxFor({ clock, journal: file, logger });
    expect(lines.join('')).toMatch(/torn last line/);
    expect(t.sandbox.jobs().map((j) => j.id)).toEqual(ids);
    const third = (await t.post('/api/text_generator/', { model_name: 'm', messages: [{ role: 'user', content: 'hi' }] })).body.id;
    await t.sandbox.close();
    const again = await sandboxFor({ clock, journal: file });
    expect(again.sandbox.jobs().map((j) => j.id)).toEqual([...ids, third]);
  });

  test.each([
    ['a garbage line in the middle', (lines: string[]) => lines.splice(2, 0, 'garbage'), 3, /not a JSON line/],
    ['an operation missing a field', (lines: string[]) => (lines[1] = lines[1]!.replace('"balance"', '"balanse"')), 2, /balance/],
    ['a header of another version', (lines: string[]) => (lines[0] = lines[0]!.replace('"version":1', '"version":2')), 1, /version 2 is not supported/],
    ['a price this sandbox would not charge', (lines: string[]) => (lines[2] = lines[2]!.replace('"price":1', '"price":7')), 3, /cannot be replayed/],
  ])('%s is refused naming the file and line', async (_name, damage, line, message) => {
    const { file, clock } = await journalWithTwoJobs();
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    damage(lines);
    writeFileSync(file, `${lines.join('\n')}\n`);
    const start = startSandbox({ clock, journal: file });
    await expect(start).rejects.toBeInstanceOf(InvalidInputError);
    await expect(start).rejects.toThrow(new RegExp(`${file.replace(/[.\\]/g, '\\$&')}:${line} `));
    await expect(start).rejects.toThrow(message);
  });

  test('fault draws made at creation are replayed, whatever the profile of the later start', async () => {
    const file = freshJournal();
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const a = await sandboxFor({ clock, journal: file, faults: { rates: { jobFailure: 1 } } });
    const id = (await a.post('/api/boreal/', { prompt: 'A fox', duration: 5 })).body.id;
    await a.sandbox.close();
    const b = await sandboxFor({ clock, journal: file, faults: 'none' });
    b.advance(HOUR);
    expect((await b.get(`/api/boreal/${id}/`)).body).toMatchObject({ status: 'failed', failed_reason: expect.stringContaining('jobFailure') });
    expect(b.sandbox.stats().faults).toEqual({}); // injected since this start: the replayed draw is not counted again
  });

  test('an avatar keeps walking through review across a restart and is not reported twice', async () => {
    const file = freshJournal();
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const a = await sandboxFor({ clock, journal: file, speed: 1 });
    const id = (await a.post('/api/personas_v2/', { creator_name: 'Bo', gender: 'm', gdown_url: 'https://d.example.com/b' })).body.id;
    await a.sandbox.close();
    clock.advance(DAY * 2);
    const b = await sandboxFor({ clock, journal: file });
    expect((await b.get(`/api/personas_v2/${id}/`)).body.process_status).toBe('done');
    expect(b.sandbox.stats().webhooks).toEqual({ delivered: 0, failed: 0, blocked: 0 });
  });
});
