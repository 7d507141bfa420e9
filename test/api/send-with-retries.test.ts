import { describe, expect, test } from 'vitest';
import {
  ApiConnectionError, ApiForbiddenError, ApiInDoubtError, ApiNotFoundError, ApiRateLimitError, ApiServerError,
  ApiTimeoutError, ApiUnauthorizedError, type ClientOptions,
} from '../../src/api/index.js';
import { startScriptedServer, type ScriptedServer } from '../helpers/scripted-server.js';
import { AVATAR_ID, JOB_ID } from './fixtures/operation-cases.js';
import { createBody, rejectionOf, shortJob, SHORT, useScriptedClients } from './fixtures/test-client.js';

const clients = useScriptedClients();
const open = (options: Partial<ClientOptions> = {}) => clients.open(options);

describe('reads', () => {
  test('retry 5xx with full-jitter exponential backoff, then give up with the last error', async () => {
    clients.server.script('GET', SHORT, ...Array.from({ length: 4 }, () => ({ status: 500, json: { detail: 'boom' } })));
    const { client, waits } = open();
    const error = await rejectionOf(client.aiShorts.get(JOB_ID));

    expect(error).toBeInstanceOf(ApiServerError);
    expect(clients.server.requests).toHaveLength(4); // maxAttempts default
    expect(waits).toEqual([250, 500, 1000]); // random 0.5 × ceilings 500, 1000, 2000
  });

  test('backoff ceilings stop growing at maxDelayMs', async () => {
    clients.server.script('GET', SHORT, ...Array.from({ length: 5 }, () => ({ status: 502, text: '<html>bad gateway</html>' })), { status: 200, json: shortJob });
    const { client, waits } = open({ random: () => 0.999, retry: { maxAttempts: 6, baseDelayMs: 1000, maxDelayMs: 3000 } });

    expect(await client.aiShorts.get(JOB_ID)).toEqual(shortJob);
    expect(waits).toEqual([999, 1998, 2997, 2997, 2997]);
  });

  test('a server that never answers times out and the read is retried', async () => {
    clients.server.script('GET', SHORT, { hang: true }, { status: 200, json: shortJob });
    const { client } = open({ timeouts: { headersMs: 100 } });

    expect(await client.aiShorts.get(JOB_ID)).toEqual(shortJob);
    expect(clients.server.requests).toHaveLength(2);
  });

  test.each([
    [401, ApiUnauthorizedError, { detail: 'Authentication credentials were not provided.' }],
    [403, ApiForbiddenError, { detail: 'Invalid key.' }],
  ])('%i is fatal and never retried', async (status, Class, body) => {
    clients.server.script('GET', SHORT, { status, json: body });
    const { client, waits } = open();

    expect(await rejectionOf(client.aiShorts.get(JOB_ID))).toBeInstanceOf(Class);
    expect(clients.server.requests).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  test('consecutive reads reuse keep-alive connections instead of opening one each', async () => {
    clients.server.script('GET', SHORT, ...Array.from({ length: 6 }, () => ({ status: 200, json: shortJob })));
    const before = clients.server.connections;
    const { client } = open();
    for (let i = 0; i < 6; i++) await client.aiShorts.get(JOB_ID);

    // undici may open a second socket while the first finishes its response; never one per request.
    expect(clients.server.connections - before).toBeLessThanOrEqual(2);
  });
});

describe('log lines', () => {
  test("a call's log fields are on each of its lines (a job's key and label); a call without has none", async () => {
    clients.server.script('GET', SHORT, { status: 500, json: { detail: 'boom' } }, { status: 200, json: shortJob }, { status: 200, json: shortJob });
    const { client, lines } = open();
    await client.aiShorts.get(JOB_ID, { log: { key: 'shorts:1', label: 'short-TR1' } });
    await client.aiShorts.get(JOB_ID);
    const logged = lines.map((l) => JSON.parse(l) as Record<string, unknown>).map((l) => [l.msg, l.status ?? null, l.key ?? null, l.label ?? null]);
    expect(logged).toEqual([
      ['request', 500, 'shorts:1', 'short-TR1'],
      ['retrying', null, 'shorts:1', 'short-TR1'],
      ['request', 200, 'shorts:1', 'short-TR1'],
      ['request', 200, null, null],
    ]);
  });
});

describe('server-advised waits', () => {
  test('a Retry-After longer than maxRetryAfterMs is clamped to it', async () => {
    clients.server.script('GET', SHORT, { status: 429, headers: { 'retry-after': '3600' } }, { status: 200, json: shortJob });
    const { client, waits } = open({ retry: { maxRetryAfterMs: 5000 } });

    await client.aiShorts.get(JOB_ID);
    expect(waits).toEqual([5000]);
  });

  test('a Retry-After HTTP date is waited until that moment', async () => {
    const now = Date.UTC(2026, 0, 1, 12, 0, 0);
    const at = new Date(now + 30_000).toUTCString();
    clients.server.script('GET', SHORT, { status: 503, headers: { 'retry-after': at } }, { status: 200, json: shortJob });
    const { client, waits } = open({ now: () => now });

    await client.aiShorts.get(JOB_ID);
    expect(waits).toEqual([30_000]);
  });

  test('a creating POST still rate limited after every attempt fails as rate limited, not in doubt', async () => {
    clients.server.script('POST', '/api/ai_shorts/', ...Array.from({ length: 4 }, () => ({ status: 429, headers: { 'retry-after': '2' } })));
    const { client, waits } = open();

    expect(await rejectionOf(client.aiShorts.create(createBody))).toBeInstanceOf(ApiRateLimitError);
    expect(waits).toEqual([2000, 2000, 2000]);
  });
});

describe('creating POSTs', () => {
  test('a retried request is the same request: same body bytes, same headers', async () => {
    clients.server.script('POST', '/api/ai_shorts/', { status: 429 }, { status: 503, headers: { 'retry-after': '0' } }, { status: 201, json: shortJob });
    const { client } = open();
    await client.aiShorts.create(createBody);

    const [first, ...rest] = clients.server.requests;
    expect(rest).toHaveLength(2);
    for (const again of rest) {
      expect(again.body).toBe(first?.body);
      expect(again.headers).toEqual(first?.headers);
    }
  });

  test.each([500, 502, 504])('HTTP %i after the request was sent is in doubt', async (status) => {
    clients.server.script('POST', '/api/ai_shorts/', { status, json: { detail: 'upstream trouble' } });
    const error = await rejectionOf(open().client.aiShorts.create(createBody));

    expect(error).toBeInstanceOf(ApiInDoubtError);
    expect(error.message).toContain(`HTTP ${status}`);
    expect((error as ApiInDoubtError).cause).toBeInstanceOf(ApiServerError);
    expect(clients.server.requests).toHaveLength(1);
  });

  test('a 503 without Retry-After is in doubt; with Retry-After it is resent', async () => {
    clients.server.script('POST', '/api/ai_shorts/', { status: 503 });
    expect(await rejectionOf(open().client.aiShorts.create(createBody))).toBeInstanceOf(ApiInDoubtError);

    clients.server.reset();
    clients.server.script('POST', '/api/ai_shorts/', { status: 503, headers: { 'retry-after': '3' } }, { status: 201, json: shortJob });
    const { client, waits } = open();
    expect(await client.aiShorts.create(createBody)).toEqual(shortJob);
    expect(waits).toEqual([3000]);
  });

  test('a header timeout after sending is in doubt and never resent', async () => {
    clients.server.script('POST', '/api/ai_shorts/', { hang: true });
    const error = await rejectionOf(open({ timeouts: { headersMs: 100 } }).client.aiShorts.create(createBody));

    expect(error).toBeInstanceOf(ApiInDoubtError);
    expect((error as ApiInDoubtError).cause).toBeInstanceOf(ApiTimeoutError);
    expect(((error as ApiInDoubtError).cause as ApiTimeoutError).phase).toBe('headers');
    expect(clients.server.requests).toHaveLength(1);
  });

  test('a 2xx whose body breaks the schema made a job: in doubt, naming the field', async () => {
    clients.server.script('POST', '/api/ai_shorts/', { status: 201, json: { status: 'pending' } });
    const error = await rejectionOf(open().client.aiShorts.create(createBody));

    expect(error).toBeInstanceOf(ApiInDoubtError);
    expect(error.message).toMatch(/aiShorts\.create: created, but unexpected response: id: /);
  });
});

describe('connection refused before sending', () => {
  test('a creating POST is resent once the service listens again', async () => {
    const probe = await startScriptedServer();
    const port = probe.port;
    await probe.close();
    let revived: ScriptedServer | undefined;
    const { client, waits } = open({
      baseUrl: `http://127.0.0.1:${port}`,
      sleep: async (ms) => {
        waits.push(ms);
        revived = await startScriptedServer({ port });
        revived.script('POST', '/api/ai_shorts/', { status: 201, json: shortJob });
      },
    });
    try {
      expect(await client.aiShorts.create(createBody)).toEqual(shortJob);
      expect(waits).toHaveLength(1);
      expect(revived?.requests).toHaveLength(1);
    } finally {
      await client.close();
      await revived?.close();
    }
  });

  test('with nothing listening, the error says the request was never sent', async () => {
    const probe = await startScriptedServer();
    await probe.close();
    const error = await rejectionOf(open({ baseUrl: probe.url }).client.aiShorts.create(createBody));

    expect(error).toBeInstanceOf(ApiConnectionError);
    expect((error as ApiConnectionError).sent).toBe(false);
    expect(error.message).toContain('ECONNREFUSED');
  });
});

describe('deleting', () => {
  const path = `/api/personas/${AVATAR_ID}/`;

  test('a 404 on the retry after a lost answer means the first delete worked', async () => {
    clients.server.script('DELETE', path, { drop: true }, { status: 404, json: { detail: 'Not found.' } });
    await expect(open().client.personas.delete(AVATAR_ID)).resolves.toBeUndefined();
    expect(clients.server.requests).toHaveLength(2);
  });

  test('a 404 on the first attempt is an unknown persona', async () => {
    clients.server.script('DELETE', path, { status: 404, json: { detail: 'Not found.' } });
    expect(await rejectionOf(open().client.personas.delete(AVATAR_ID))).toBeInstanceOf(ApiNotFoundError);
  });
});

test('a base address with a path prefix keeps the prefix', async () => {
  clients.server.script('GET', `/gateway${SHORT}`, { status: 200, json: shortJob });
  const { client } = open({ baseUrl: `${clients.server.url}/gateway/` });

  expect(await client.aiShorts.get(JOB_ID)).toEqual(shortJob);
});
