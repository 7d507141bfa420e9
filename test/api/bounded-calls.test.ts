import { describe, expect, test } from 'vitest';
import {
  ApiAbortedError, type ApiConnectionError, ApiInDoubtError, ApiResponseTooLargeError, ApiServerError, ApiTimeoutError,
  type ClientOptions,
} from '../../src/api/index.js';
import type { Reply } from '../helpers/scripted-server.js';
import { JOB_ID } from './fixtures/operation-cases.js';
import { createBody, rejectionOf, shortJob, SHORT, useScriptedClients } from './fixtures/test-client.js';

/**
 * Every call of the client is bounded: in time (a whole attempt, and the whole call), in memory
 * (the answer's size), and by the caller, who can abort it at any moment and learn whether the
 * request may have left.
 */
const clients = useScriptedClients();
const open = (options: Partial<ClientOptions> = {}) => clients.open(options);
/** One byte every 40 ms, for ever: never silent long enough for a body timeout. */
const trickle: Reply = { stream: { status: 200, chunk: ' ', count: Infinity, everyMs: 40 } };
/** 64 KiB chunks with no Content-Length: far more than the client reads. */
const flood = (status: number): Reply => ({ stream: { status, chunk: 'x'.repeat(65_536), count: 64, everyMs: 0 } });

/** Resolves once the server has received `n` requests in all. */
async function received(n: number): Promise<void> {
  while (clients.server.requests.length < n) await new Promise((resolve) => setImmediate(resolve));
}

describe('a whole attempt has a deadline, headers and body together', () => {
  test('a read whose body trickles in is cut at the deadline and tried again', async () => {
    clients.server.script('GET', SHORT, trickle, { status: 200, json: shortJob });
    const { client } = open({ timeouts: { attemptMs: 300 } });

    expect(await client.aiShorts.get(JOB_ID)).toEqual(shortJob);
    expect(clients.server.requests).toHaveLength(2);
  });

  test('a creating POST whose answer trickles in is in doubt at the deadline, never resent', async () => {
    clients.server.script('POST', '/api/ai_shorts/', trickle);
    const error = await rejectionOf(open({ timeouts: { attemptMs: 300 } }).client.aiShorts.create(createBody));

    expect(error).toBeInstanceOf(ApiInDoubtError);
    expect((error as ApiInDoubtError).cause).toBeInstanceOf(ApiTimeoutError);
    expect(((error as ApiInDoubtError).cause as ApiTimeoutError).phase).toBe('attempt');
    expect(clients.server.requests).toHaveLength(1);
  });

  test('the whole call has a time budget: no wait that would end past it is begun', async () => {
    clients.server.script('GET', SHORT, ...Array.from({ length: 6 }, () => ({ status: 503 })));
    let now = 0;
    const waits: number[] = [];
    const { client } = open({
      now: () => now,
      random: () => 0.999,
      retry: { maxAttempts: 6, baseDelayMs: 1000, maxDelayMs: 1000, maxElapsedMs: 2500 },
      sleep: async (ms) => {
        waits.push(ms);
        now += ms;
      },
    });

    expect(await rejectionOf(client.aiShorts.get(JOB_ID))).toBeInstanceOf(ApiServerError);
    expect(waits).toEqual([999, 999]); // a third wait would end at 2997 ms, past the 2500 ms budget
    expect(clients.server.requests).toHaveLength(3);
  });
});

describe('the caller can abort any call', () => {
  test('aborted before it starts: nothing is sent, and the error says so', async () => {
    const { client } = open();
    const error = await rejectionOf(client.aiShorts.create(createBody, { signal: AbortSignal.abort(new Error('run stopping')) }));

    expect(error).toBeInstanceOf(ApiAbortedError);
    expect((error as ApiAbortedError).sent).toBe(false);
    expect(error.message).toContain('run stopping');
    expect(clients.server.requests).toHaveLength(0);
  });

  test('a creating POST aborted after it reached the service is in doubt, at once', async () => {
    clients.server.script('POST', '/api/ai_shorts/', { hang: true });
    const stop = new AbortController();
    const call = rejectionOf(open().client.aiShorts.create(createBody, { signal: stop.signal }));
    await received(1);
    stop.abort(new Error('max-wait reached'));
    const error = await call;

    expect(error).toBeInstanceOf(ApiInDoubtError);
    expect((error as ApiInDoubtError).cause).toBeInstanceOf(ApiAbortedError);
    expect(((error as ApiInDoubtError).cause as ApiAbortedError).sent).toBe(true);
  });

  test('a creating POST still queued behind a busy connection when aborted is "not sent", and never leaves', async () => {
    clients.server.script('POST', '/api/ai_shorts/', { hang: true }, { status: 201, json: shortJob });
    const { client } = open({ creatingConnections: 1 });
    const stop = new AbortController();
    const busy = rejectionOf(client.aiShorts.create(createBody, { signal: stop.signal }));
    await received(1);
    const queued = rejectionOf(client.aiShorts.create({ ...createBody, script: 'Another one.' }, { signal: stop.signal }));
    await new Promise((resolve) => setTimeout(resolve, 50)); // the second POST waits for the one socket for creations
    stop.abort(new Error('interrupted'));

    const error = await queued;
    expect(error).toBeInstanceOf(ApiAbortedError);
    expect((error as ApiAbortedError).sent).toBe(false);
    expect(await busy).toBeInstanceOf(ApiInDoubtError);
    await client.close();
    expect(clients.server.requestsTo('POST', '/api/ai_shorts/')).toHaveLength(1);
  });

  test('creations have sockets of their own: a read holding the only read socket never delays a POST', async () => {
    clients.server.script('GET', SHORT, { hang: true });
    clients.server.script('POST', '/api/ai_shorts/', { status: 201, json: shortJob });
    const { client } = open({ connections: 1 });
    const stop = new AbortController();
    const busy = rejectionOf(client.aiShorts.get(JOB_ID, { signal: stop.signal }));
    await received(1);
    await expect(client.aiShorts.create(createBody)).resolves.toMatchObject({ id: shortJob.id });
    stop.abort(new Error('done'));
    expect(await busy).toBeInstanceOf(ApiAbortedError);
    await client.close();
  });

  test('an abort during the wait between attempts ends the retries: not sent again', async () => {
    clients.server.script('POST', '/api/ai_shorts/', { status: 429 }, { status: 201, json: shortJob });
    const stop = new AbortController();
    const { client } = open({
      sleep: (_ms, signal) => {
        stop.abort(new Error('lock lost'));
        return signal?.aborted ? Promise.reject(signal.reason as Error) : Promise.resolve();
      },
    });
    const error = await rejectionOf(client.aiShorts.create(createBody, { signal: stop.signal }));

    expect(error).toBeInstanceOf(ApiAbortedError);
    expect((error as ApiAbortedError).sent).toBe(false);
    expect(clients.server.requests).toHaveLength(1);
  });

  test('a client-wide signal aborts a read on the wire; a read is never in doubt', async () => {
    clients.server.script('GET', SHORT, trickle);
    const stop = new AbortController();
    const call = rejectionOf(open({ signal: stop.signal }).client.aiShorts.get(JOB_ID));
    await received(1);
    stop.abort();
    const error = await call;

    expect(error).toBeInstanceOf(ApiAbortedError);
    expect((error as ApiConnectionError).sent).toBe(true);
    expect(clients.server.requests).toHaveLength(1);
  });
});

describe('answers are read up to a size', () => {
  test('an oversized answer to a read is dropped unread and tried again like a 5xx', async () => {
    clients.server.script('GET', SHORT, flood(200), { status: 200, json: shortJob });
    const { client } = open({ maxResponseBytes: 4096 });

    expect(await client.aiShorts.get(JOB_ID)).toEqual(shortJob);
    expect(clients.server.requests).toHaveLength(2);
  });

  test('one announced by Content-Length is refused before a byte is read, and gives up with the reason', async () => {
    const big = { status: 200, text: 'y'.repeat(10_000), headers: { 'content-length': '10000' } };
    clients.server.script('GET', SHORT, big, big, big, big);
    const error = await rejectionOf(open({ maxResponseBytes: 4096 }).client.aiShorts.get(JOB_ID));

    expect(error).toBeInstanceOf(ApiResponseTooLargeError);
    expect(error.message).toMatch(/HTTP 200 answer too large to read \(it announced 10000 bytes; at most 4096 are read\)/);
  });

  test('an oversized answer to a creating POST is in doubt (it was sent), never resent', async () => {
    clients.server.script('POST', '/api/ai_shorts/', flood(201));
    const error = await rejectionOf(open({ maxResponseBytes: 4096 }).client.aiShorts.create(createBody));

    expect(error).toBeInstanceOf(ApiInDoubtError);
    expect((error as ApiInDoubtError).cause).toBeInstanceOf(ApiResponseTooLargeError);
    expect(clients.server.requests).toHaveLength(1);
  });

  test('an oversized error body is handled the same way: a read is tried again', async () => {
    clients.server.script('GET', SHORT, flood(400), { status: 200, json: shortJob });
    expect(await open({ maxResponseBytes: 4096 }).client.aiShorts.get(JOB_ID)).toEqual(shortJob);
  });
});
