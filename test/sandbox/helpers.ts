import { afterAll } from 'vitest';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { ManualClock } from '../../src/util/clock.js';

export const AUTH = { 'x-api-id': 'test-id', 'x-api-key': 'test-key' };

export interface Answer {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- test reads of arbitrary JSON
  headers: Headers;
}

/** A sandbox on a manual clock, closed after the test file. Time moves only when the test says so. */
export interface TestSandbox {
  sandbox: Sandbox;
  clock: ManualClock;
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Answer>;
  get(path: string): Promise<Answer>;
  post(path: string, body: unknown): Promise<Answer>;
  /** Moves the clock on by `seconds` of service time (already ÷ speed when speed is set). */
  advance(ms: number): void;
}

/** Every sandbox a test file starts is closed when the file is done. */
const open: Sandbox[] = [];
afterAll(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

export async function sandboxFor(options: SandboxOptions = {}): Promise<TestSandbox> {
  const clock = options.clock instanceof ManualClock ? options.clock : new ManualClock(Date.UTC(2026, 0, 1));
  const sandbox = await startSandbox({ ...options, clock });
  open.push(sandbox);
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = AUTH): Promise<Answer> => {
    const isForm = typeof body === 'string';
    const response = await fetch(`${sandbox.url}${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': isForm ? 'application/x-www-form-urlencoded' : 'application/json' }) },
      body: body === undefined ? undefined : isForm ? body : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, body: parsed, headers: response.headers };
  };
  return {
    sandbox,
    clock,
    call,
    get: (path) => call('GET', path),
    post: (path, body) => call('POST', path, body),
    advance: (ms) => clock.advance(ms),
  };
}

/** A link with sandbox-served images, for HTML ads and ad clones. */
export async function makeLink(t: TestSandbox, imageUrls?: string[]): Promise<string> {
  const answer = imageUrls
    ? await t.post('/api/links/link_with_params/', { title: 'Trail Shoe', image_urls: imageUrls })
    : await t.post('/api/links/', { url: 'https://shop.example.com/products/trail-shoe' });
  if (answer.status !== 201) throw new Error(`link not created: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body.id as string;
}

/** An hour of service time at speed 1: enough for any job but an avatar's review. */
export const HOUR = 3600 * 1000;
export const DAY = 24 * HOUR;
