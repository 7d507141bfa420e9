import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { InvalidInputError, UsageError } from '../../src/errors.js';
import { FAULT_NAMES, FAULT_PROFILES, type FaultName } from '../../src/sandbox/index.js';
import { resolveFaultProfile } from '../../src/sandbox/faults/profile.js';
import { AUTH, HOUR, makeLink, sandboxFor, type TestSandbox } from './helpers.js';

/**
 * Each fault happens at its configured rate with a fixed seed: over N trials the count is within
 * four standard deviations of rate × N (with a fixed seed it is also exactly reproducible), and
 * the stats count exactly the faults a client saw.
 */
const RATE = 0.25;
const near = (count: number, trials: number, rate = RATE) => {
  const sd = Math.sqrt(trials * rate * (1 - rate));
  expect(Math.abs(count - trials * rate), `${count} of ${trials} at ${rate}`).toBeLessThan(4 * sd);
};
const withFault = (name: FaultName, extra: object = {}) => sandboxFor({ seed: 42, credits: 1_000_000, faults: { rates: { [name]: RATE }, ...extra } });
const text = { model_name: 'm', messages: [{ role: 'user', content: 'hi' }] };

async function statuses(t: TestSandbox, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i += 1) out.push((await t.get('/api/remaining_credits/')).status);
  return out;
}

/**
 * Makes 100 requests one after another and counts those the sandbox held on its clock: each held
 * one must still wait 1 ms before slowMs ends (the delay is the whole slowMs), then answer as
 * `check` expects.
 */
async function heldOf100<T>(t: TestSandbox, slowMs: number, request: () => Promise<T>, check: (answer: T) => void): Promise<number> {
  let held = 0;
  for (let i = 0; i < 100; i += 1) {
    const answer = request();
    let settled = false;
    void answer.then(() => (settled = true));
    while (!settled && t.clock.pending === 0) await new Promise((resolve) => setImmediate(resolve));
    if (!settled) {
      held += 1;
      t.advance(slowMs - 1);
      expect(t.clock.pending).toBe(1);
      t.advance(1);
    }
    check(await answer);
  }
  return held;
}

describe('request faults', () => {
  test.each([
    ['rateLimit', 429],
    ['unavailable', 503],
  ] as const)('%s answers %s with Retry-After at its rate', async (name, status) => {
    const t = await withFault(name, { retryAfterSeconds: 7 });
    const seen: number[] = [];
    for (let i = 0; i < 200; i += 1) {
      const answer = await t.get('/api/remaining_credits/');
      seen.push(answer.status);
      if (answer.status === status) expect(answer.headers.get('retry-after')).toBe('7');
    }
    const hits = seen.filter((s) => s === status).length;
    near(hits, 200);
    expect(t.sandbox.stats().faults[name]).toBe(hits);
  });

  test('the same seed gives the same faults; another seed other ones', async () => {
    const run = async (seed: number) => statuses(await sandboxFor({ seed, faults: { rates: { rateLimit: RATE } } }), 60);
    expect(await run(7)).toEqual(await run(7));
    expect(await run(7)).not.toEqual(await run(8));
  });

  test('slow answers wait slowMs ÷ speed on the clock at their rate', async () => {
    const t = await withFault('slow', { slowMs: 4000 });
    const slow = await heldOf100(t, 4000, async () => (await t.get('/api/remaining_credits/')).status, (status) => expect(status).toBe(200));
    near(slow, 100);
    expect(t.sandbox.stats().faults.slow).toBe(slow);
  });

  test('500 after create: the job exists and is charged although the answer is lost', async () => {
    const t = await withFault('errorAfterCreate');
    const answers = [];
    for (let i = 0; i < 100; i += 1) answers.push((await t.post('/api/text_generator/', text)).status);
    const errors = answers.filter((s) => s === 500).length;
    near(errors, 100);
    expect(answers.filter((s) => s === 201)).toHaveLength(100 - errors);
    const stats = t.sandbox.stats();
    expect(stats.created.text_generation).toBe(100);
    expect(stats.credits.charged).toBe(100);
    expect(stats.faults.errorAfterCreate).toBe(errors);
  });

  test('connection reset after create: the job exists and is charged', async () => {
    const t = await withFault('resetAfterCreate');
    let resets = 0;
    for (let i = 0; i < 100; i += 1) {
      await t.post('/api/text_generator/', text).catch(() => (resets += 1));
    }
    near(resets, 100);
    expect(t.sandbox.stats().created.text_generation).toBe(100);
    expect(t.sandbox.stats().credits.charged).toBe(100);
    expect(t.sandbox.stats().faults.resetAfterCreate).toBe(resets);
  });
});

describe('job faults', () => {
  test.each([
    ['jobFailure', 'failed'],
    ['jobRejection', 'rejected'],
  ] as const)('%s ends jobs %s at its rate', async (name, end) => {
    const t = await withFault(name);
    const ids: string[] = [];
    for (let i = 0; i < 120; i += 1) ids.push((await t.post('/api/boreal/', { prompt: `p${i}`, duration: 5 })).body.id);
    t.advance(HOUR * 10);
    const ended = t.sandbox.jobs().filter((j) => ids.includes(j.id) && j.status === end).length;
    near(ended, 120);
    expect(t.sandbox.stats().faults[name]).toBe(ended);
    expect(t.sandbox.jobs().filter((j) => ids.includes(j.id) && j.status === 'done')).toHaveLength(120 - ended);
  });

  test('adTooLarge fails single ads at its rate and refunds each', async () => {
    const t = await withFault('adTooLarge');
    const link = await makeLink(t);
    const styles = ['scratch-card', 'spin-wheel', 'tap-to-reveal', 'memory-match', 'quiz-3q', 'carousel', 'hero-zoom', 'swipe-deck', 'story-cards', 'lookbook'];
    const ids: string[] = [];
    for (let i = 0; i < 12; i += 1) ids.push((await t.post('/api/html_interactive_ads/', { link, style_ids: styles })).body.id);
    t.advance(HOUR);
    let failed = 0;
    for (const id of ids) failed += (await t.get(`/api/html_interactive_ads/${id}/`)).body.ads.filter((ad: { status: string }) => ad.status === 'failed').length;
    near(failed, 120);
    expect(t.sandbox.stats().credits.refunded).toBe(failed * 10);
  });
});

describe('webhook and download faults', () => {
  test.each([
    ['webhookDrop', (deliveries: number, changes: number) => changes - deliveries],
    ['webhookDuplicate', (deliveries: number, changes: number) => deliveries - changes],
  ] as const)('%s at its rate', async (name, faultsSeen) => {
    let deliveries = 0;
    const receiver = createServer((req, res) => req.resume().on('end', () => (deliveries += 1, res.writeHead(204).end())));
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const t = await withFault(name);
    for (let i = 0; i < 40; i += 1) await t.post('/api/boreal/', { prompt: `p${i}`, duration: 5, webhook_url: hook });
    t.advance(HOUR * 10);
    t.sandbox.stats(); // brings the life cycles up to now
    await t.sandbox.close(); // waits for deliveries in flight
    await new Promise((resolve) => receiver.close(resolve));
    const changes = 40 * 3; // in_queue, running, done
    near(faultsSeen(deliveries, changes), changes);
    expect(t.sandbox.stats().faults[name]).toBe(faultsSeen(deliveries, changes));
  });

  async function doneVideo(t: TestSandbox): Promise<string> {
    const id = (await t.post('/api/boreal/', { prompt: 'p', duration: 5 })).body.id;
    t.advance(HOUR);
    return id;
  }

  test('urlExpired issues URLs that are refused (403) at its rate; a re-read gives a fresh one', async () => {
    const t = await withFault('urlExpired');
    const id = await doneVideo(t);
    let refused = 0;
    for (let i = 0; i < 100; i += 1) {
      const video = (await t.get(`/api/boreal/${id}/`)).body.video_output as string;
      const download = await fetch(video);
      await download.arrayBuffer();
      if (download.status === 403) refused += 1;
      else expect(download.status).toBe(200);
    }
    near(refused, 100);
    expect(t.sandbox.stats().faults.urlExpired).toBe(refused);
  });

  test('urlExpired is drawn only for outputs a job read hands out, never for previews or webhook payloads', async () => {
    const t = await sandboxFor({ speed: 100, faults: { rates: { urlExpired: 1 } } });
    const hook = 'http://127.0.0.1:9/hook'; // nothing listens: the payloads are built, their delivery fails
    const id = (await t.post('/api/ai_shorts/', { aspect_ratio: '9x16', script: 'Hi there.', style: '3D', webhook_url: hook })).body.id;
    t.advance(HOUR);
    expect(t.sandbox.stats().faults.urlExpired ?? 0).toBe(0); // the done webhook carried video_output unexpired
    const read = (await t.get(`/api/ai_shorts/${id}/`)).body;
    expect(t.sandbox.stats().faults.urlExpired).toBe(1); // video_output only, not preview
    expect((await fetch(read.video_output)).status).toBe(403);
    expect((await fetch(read.preview)).status).toBe(200);
    await t.sandbox.close();
  });

  test('downloadCut stops a body halfway at its rate', async () => {
    const t = await withFault('downloadCut');
    const id = await doneVideo(t);
    const video = (await t.get(`/api/boreal/${id}/`)).body.video_output as string;
    let cut = 0;
    for (let i = 0; i < 100; i += 1) {
      try {
        const bytes = await (await fetch(video)).arrayBuffer();
        expect(bytes.byteLength).toBeGreaterThan(10_000);
      } catch {
        cut += 1;
      }
    }
    near(cut, 100);
    expect(t.sandbox.stats().faults.downloadCut).toBe(cut);
  });

  test('slowDownload holds a download slowMs ÷ speed on the clock at its rate, then sends it whole', async () => {
    const t = await withFault('slowDownload', { slowMs: 4000 });
    const id = await doneVideo(t);
    const video = (await t.get(`/api/boreal/${id}/`)).body.video_output as string;
    const fetchBytes = async () => (await (await fetch(video)).arrayBuffer()).byteLength;
    const slow = await heldOf100(t, 4000, fetchBytes, (bytes) => expect(bytes).toBeGreaterThan(10_000));
    near(slow, 100);
    expect(t.sandbox.stats().faults.slowDownload).toBe(slow);
    expect(t.sandbox.stats().faults.slow ?? 0).toBe(0);
  });
});

describe('fault profiles', () => {
  test('flaky and hostile name every fault, hostile at higher rates', () => {
    for (const name of FAULT_NAMES) {
      expect(FAULT_PROFILES.flaky.rates[name]).toBeGreaterThan(0);
      expect(FAULT_PROFILES.hostile.rates[name]).toBeGreaterThan(FAULT_PROFILES.flaky.rates[name]!);
    }
  });

  test('a FILE.json profile is read, and a bad one names the file and the field', () => {
    const dir = mkdtempSync(join(tmpdir(), 'faults-'));
    const good = join(dir, 'good.json');
    writeFileSync(good, JSON.stringify({ rates: { rateLimit: 0.5 }, retryAfterSeconds: 2 }));
    expect(resolveFaultProfile(good)).toEqual({ rates: { rateLimit: 0.5 }, retryAfterSeconds: 2 });
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ rates: { rateLimit: 2, tooSlow: 0.1 } }));
    expect(() => resolveFaultProfile(bad)).toThrow(InvalidInputError);
    expect(() => resolveFaultProfile(bad)).toThrow(/bad\.json {2}rates\.rateLimit: .*0 to 1/);
    expect(() => resolveFaultProfile(bad)).toThrow(/unknown key tooSlow; accepted: rateLimit, unavailable/);
    expect(() => resolveFaultProfile('chaotic')).toThrow(UsageError);
  });

  test('introspection and CDN are not hit by request faults', async () => {
    const t = await sandboxFor({ faults: { rates: { rateLimit: 1, unavailable: 1 } } });
    expect((await t.call('GET', '/__sandbox/stats', undefined, {})).status).toBe(200);
    expect((await t.call('GET', '/api/remaining_credits/', undefined, AUTH)).status).toBe(503);
  });
});
