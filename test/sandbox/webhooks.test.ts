import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { systemClock } from '../../src/util/clock.js';
import { isLoopbackUrl } from '../../src/sandbox/webhooks.js';
import { AUTH, type Answer } from './helpers.js';

/** A webhook receiver on loopback: records every payload and lets a test await the ones it wants. */
class Receiver {
  readonly payloads: Record<string, unknown>[] = [];
  readonly server: Server;
  url = '';
  private waiters: { until: (p: Record<string, unknown>[]) => boolean; resolve: () => void }[] = [];

  private constructor() {
    this.server = createServer((req, res) => {
      let text = '';
      req.on('data', (chunk) => (text += chunk));
      req.on('end', () => {
        this.payloads.push(JSON.parse(text) as Record<string, unknown>);
        res.writeHead(204).end();
        this.waiters = this.waiters.filter((w) => (w.until(this.payloads) ? (w.resolve(), false) : true));
      });
    });
  }

  static async start(): Promise<Receiver> {
    const receiver = new Receiver();
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    receiver.url = `http://127.0.0.1:${(receiver.server.address() as AddressInfo).port}/hook/secret-token`;
    return receiver;
  }

  waitFor(until: (payloads: Record<string, unknown>[]) => boolean): Promise<void> {
    if (until(this.payloads)) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ until, resolve }));
  }
}

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanup.splice(0).map((close) => close()));
});

/** A sandbox on the real clock at a speed where a whole life cycle takes milliseconds. */
async function fastSandbox(options: SandboxOptions = {}): Promise<{ sandbox: Sandbox; receiver: Receiver; post: (path: string, body: unknown) => Promise<Answer['body']> }> {
  const sandbox = await startSandbox({ speed: 1_000_000, clock: systemClock, ...options });
  const receiver = await Receiver.start();
  cleanup.push(() => sandbox.close(), () => new Promise((resolve) => receiver.server.close(() => resolve())));
  const post = async (path: string, body: unknown) =>
    (await fetch(`${sandbox.url}${path}`, { method: 'POST', headers: { ...AUTH, 'content-type': 'application/json' }, body: JSON.stringify(body) })).json();
  return { sandbox, receiver, post };
}

const hasStatus = (id: string, status: string) => (payloads: Record<string, unknown>[]) => payloads.some((p) => p.id === id && p.status === status);

describe('webhooks', () => {
  test('a video job POSTs the subset payload on each status change, at high speed within milliseconds', async () => {
    const { receiver, post } = await fastSandbox();
    const job = await post('/api/ai_shorts/', { aspect_ratio: '9x16', script: 'Hello webhook.', style: '3D', webhook_url: receiver.url });
    await receiver.waitFor(hasStatus(job.id, 'done'));
    const mine = receiver.payloads.filter((p) => p.id === job.id);
    expect(mine.map((p) => p.status)).toEqual(['in_queue', 'running', 'done']);
    for (const payload of mine) expect(Object.keys(payload).sort()).toEqual(['failed_reason', 'id', 'status', 'video_output']);
    expect(mine[2]!.video_output).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/cdn\/.+signature=/);
    expect(mine[0]!.video_output).toBeNull();
  });

  test('a lipsync payload carries `output`', async () => {
    const { receiver, post } = await fastSandbox();
    const job = await post('/api/lipsyncs_v2/', {
      video_inputs: [{ character: { type: 'avatar', avatar_id: '5eed0000-0000-4000-8000-000000000101' }, voice: { type: 'text', input_text: 'Hi.' } }],
      webhook_url: receiver.url,
    });
    await receiver.waitFor(hasStatus(job.id, 'done'));
    expect(receiver.payloads.find((p) => p.status === 'done')).toEqual({ id: job.id, status: 'done', failed_reason: '', output: expect.stringContaining('/cdn/') });
  });

  test('a product regen reports its task fields with offset timestamps when it succeeds', async () => {
    const { receiver, post, sandbox } = await fastSandbox();
    const task = await post('/api/product_to_videos/gen_image/', { product_url: 'https://i.example.com/p.png' });
    await waitForStatus(sandbox, task.id, 'image_generated');
    await post(`/api/product_to_videos/${task.id}/gen_video/`, {});
    await waitForStatus(sandbox, task.id, 'video_generated');
    const regen = await post(`/api/product_to_videos/${task.id}/regen_video/`, { video_prompt: 'slow', webhook_url: receiver.url });
    await receiver.waitFor(hasStatus(regen.id, 'video_generated'));
    const payload = receiver.payloads.find((p) => p.id === regen.id)!;
    expect(Object.keys(payload)).toEqual(expect.arrayContaining([
      'regen_source_id', 'regen_type', 'failed_reason', 'id', 'type', 'product_url', 'aspect_ratio', 'override_avatar', 'motion_style',
      'product_showcase_url', 'image_prompt', 'video_prompt', 'status', 'generated_video_url', 'generated_photo_url', 'created_at', 'updated_at', 'webhook_url',
    ]));
    expect(payload).toMatchObject({ regen_source_id: task.id, regen_type: 'regen_video', status: 'video_generated' });
    expect(payload.created_at).toMatch(/\+00:00$/);
    expect(receiver.payloads.filter((p) => p.id === regen.id)).toHaveLength(1); // only success or failure
  });

  test('with webhookDuplicate at rate 1 every change is delivered twice, in order', async () => {
    const { receiver, post } = await fastSandbox({ faults: { rates: { webhookDuplicate: 1 } } });
    const job = await post('/api/boreal/', { prompt: 'p', duration: 5, webhook_url: receiver.url });
    await receiver.waitFor((p) => p.filter((x) => x.status === 'done').length === 2);
    expect(receiver.payloads.map((p) => p.status)).toEqual(['in_queue', 'in_queue', 'running', 'running', 'done', 'done']);
    expect(receiver.payloads.every((p) => p.id === job.id)).toBe(true);
  });

  test('with webhookDrop at rate 1 nothing arrives and the drops are counted', async () => {
    const { receiver, post, sandbox } = await fastSandbox({ faults: { rates: { webhookDrop: 1 } } });
    const job = await post('/api/boreal/', { prompt: 'p', duration: 5, webhook_url: receiver.url });
    await waitForStatus(sandbox, job.id, 'done');
    expect(receiver.payloads).toEqual([]);
    expect(sandbox.stats().faults.webhookDrop).toBe(3);
  });

  test('a receiver off loopback is not contacted unless allowed', async () => {
    const { post, sandbox } = await fastSandbox();
    const job = await post('/api/boreal/', { prompt: 'p', duration: 5, webhook_url: 'https://hooks.example.com/x' });
    await waitForStatus(sandbox, job.id, 'done');
    expect(sandbox.stats().webhooks).toEqual({ delivered: 0, failed: 0, blocked: 3 });
  });

  test.each([
    ['http://127.0.0.1:9/x', true], ['http://127.3.4.5/x', true], ['http://localhost:8080/', true], ['http://[::1]:80/', true],
    ['https://hooks.example.com/x', false], ['http://10.0.0.1/x', false], ['http://192.168.1.1/', false], ['http://127.0.0.1.example.com/', false], ['not a url', false],
  ])('%s is loopback: %s', (url, loopback) => {
    expect(isLoopbackUrl(url)).toBe(loopback);
  });
});

/** Awaits a status through the sandbox's own job list (no sleeping: each check yields to the event loop). */
async function waitForStatus(sandbox: Sandbox, id: string, status: string): Promise<void> {
  for (;;) {
    if (sandbox.jobs().find((j) => j.id === id)?.status === status) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
}
