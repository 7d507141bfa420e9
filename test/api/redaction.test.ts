import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ApiStatusError } from '../../src/api/index.js';
import { redactAnswer } from '../../src/api/redact-error.js';
import { InvalidInputError, UsageError } from '../../src/errors.js';
import { createLogger, redactSecrets } from '../../src/util/logger.js';
import { runCli } from '../helpers/cli.js';
import { startScriptedServer, type ScriptedServer } from '../helpers/scripted-server.js';
import { JOB_ID } from './fixtures/operation-cases.js';
import { API_ID, API_KEY, rejectionOf, testClient } from './fixtures/test-client.js';

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(() => server.close());

describe('redactSecrets', () => {
  test.each([
    ['the raw value', 'key=abcd1234', ['abcd1234'], 'key=[REDACTED]'],
    ['every occurrence', 'abcd1234 and abcd1234', ['abcd1234'], '[REDACTED] and [REDACTED]'],
    ['the JSON-escaped form', JSON.stringify({ k: 'a"b\\c/1' }), ['a"b\\c/1'], '{"k":"[REDACTED]"}'],
    ['the URL-encoded form', '/x?key=a%2Fb%2Bc%3D', ['a/b+c='], '/x?key=[REDACTED]'],
    ['a longer secret before one it contains', 'abcd-long-abcd', ['abcd', 'abcd-long-abcd'], '[REDACTED]'],
    ['nothing when secrets are absent', 'plain text', [undefined, ''], 'plain text'],
    ['nothing for values too short to guard anything', 'id 42 of 420', ['42'], 'id 42 of 420'],
  ])('replaces %s', (_name, text, secrets, expected) => {
    expect(redactSecrets(text, secrets)).toBe(expected);
  });
});

describe('createLogger', () => {
  const capture = () => {
    const lines: string[] = [];
    return { lines, destination: { write: (line: string) => void lines.push(line) } };
  };

  test('takes its level from REELPIPE_LOG_LEVEL and refuses an unknown one', () => {
    const { lines, destination } = capture();
    const logger = createLogger({ env: { REELPIPE_LOG_LEVEL: 'warn' }, destination });
    logger.info('hidden');
    logger.warn('shown');
    expect(lines.map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual(['shown']);
    expect(() => createLogger({ env: { REELPIPE_LOG_LEVEL: 'loud' }, destination })).toThrow(UsageError);
    expect(() => createLogger({ env: { REELPIPE_LOG_LEVEL: 'loud' }, destination })).toThrow(/REELPIPE_LOG_LEVEL.*expected one of fatal, error/);
  });

  test('scrubs the environment credentials from messages, fields, headers and error stacks', () => {
    const { lines, destination } = capture();
    const env = { REELPIPE_API_ID: 'id-from-env-9', REELPIPE_API_KEY: 'key-from-env-9' };
    const logger = createLogger({ env, destination, level: 'debug' });
    logger.info(`sending with key-from-env-9`);
    logger.debug({ headers: { 'x-api-id': 'id-from-env-9', 'x-api-key': 'key-from-env-9' } }, 'headers');
    logger.error({ err: new Error('bad key key-from-env-9'), note: 'id-from-env-9' }, 'failed');

    expect(lines).toHaveLength(3);
    for (const line of lines) {
      expect(line).not.toContain('key-from-env-9');
      expect(line).not.toContain('id-from-env-9');
    }
    expect(lines.join('')).toContain('[REDACTED]');
  });
});

describe('the client never reveals the credentials', () => {
  test('in any logged line or error, across successes, retries, refusals and failures', async () => {
    const echo = { detail: `Invalid key ${API_KEY} for account ${API_ID}` };
    server.script('GET', `/api/ai_shorts/${JOB_ID}/`,
      { status: 429, headers: { 'retry-after': '1' } },
      { status: 200, json: { id: JOB_ID, status: 'done' } },
      { status: 401, json: echo },
      { status: 200, json: { id: JOB_ID, status: API_KEY } },
    );
    server.script('POST', '/api/ai_shorts/', { status: 400, json: { script: [`contains ${API_KEY}`] } }, { drop: true });
    const { client, lines } = testClient(server.url);
    const body = { aspect_ratio: '9x16', script: 'Hello', style: '3D' } as const;

    await client.aiShorts.get(JOB_ID);
    const errors = [
      await rejectionOf(client.aiShorts.get(JOB_ID)),
      await rejectionOf(client.aiShorts.get(JOB_ID)),
      await rejectionOf(client.aiShorts.create(body)),
      await rejectionOf(client.aiShorts.create(body)),
      await rejectionOf(client.aiShorts.get(API_KEY)),
    ];
    await client.close();
    const refused = testClient('http://127.0.0.1:9');
    errors.push(await rejectionOf(refused.client.credits.remaining()));
    await refused.client.close();

    // The test is not vacuous: the service did receive the credentials, and lines were logged.
    expect(server.requests.every((r) => r.headers['x-api-key'] === API_KEY)).toBe(true);
    expect(lines.filter((l) => l.includes('"msg":"request"')).length).toBeGreaterThanOrEqual(6);
    const texts = [
      ...lines, ...refused.lines,
      ...errors.flatMap((e) => [e.message, e.stack ?? '', String(e.cause ?? '')]),
      ...errors.filter((e) => e instanceof ApiStatusError).map((e) => JSON.stringify([e.body, e.fieldErrors])),
      // A refused id is quoted in its located issue: the issue is scrubbed like the message.
      ...errors.filter((e) => e instanceof InvalidInputError).map((e) => JSON.stringify(e.issues)),
    ];
    expect(errors.some((e) => e instanceof InvalidInputError && e.issues.length > 0)).toBe(true);
    for (const text of texts) {
      expect(text).not.toContain(API_KEY);
      expect(text).not.toContain(JSON.stringify(API_KEY).slice(1, -1));
      expect(text).not.toContain(API_ID);
    }
  });

  test('every request is logged at debug with method, path, status, attempt and duration', async () => {
    server.reset();
    server.script('GET', '/api/remaining_credits/', { status: 503 }, { status: 200, json: { remaining_credits: 3 } });
    const { client, lines } = testClient(server.url);
    await client.credits.remaining();
    await client.close();

    const requests = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'request');
    expect(requests).toEqual([
      expect.objectContaining({ level: 20, op: 'credits.remaining', method: 'GET', path: '/api/remaining_credits/', status: 503, attempt: 1, durationMs: expect.any(Number) }),
      expect.objectContaining({ level: 20, op: 'credits.remaining', method: 'GET', path: '/api/remaining_credits/', status: 200, attempt: 2, durationMs: expect.any(Number) }),
    ]);
  });
});

describe('service text echoing the credentials is scrubbed where it enters', () => {
  /** The key as JSON may spell it: every character as a \u escape, which only decoding reveals. */
  const escaped = [...API_KEY].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');

  test('every string of a parsed answer, plain or \\u-escaped, keys included', async () => {
    server.reset();
    const text = `{"id":"${JOB_ID}","status":"failed","failed_reason":"bad key ${escaped}",` +
      `"detail":{"echo":["${escaped} for ${API_ID}"]},"${escaped}":1}`;
    server.script('GET', `/api/ai_shorts/${JOB_ID}/`, { status: 200, text });
    const { client } = testClient(server.url);
    const job = await client.aiShorts.get(JOB_ID);
    await client.close();

    expect(job).toMatchObject({ failed_reason: 'bad key [REDACTED]', detail: { echo: ['[REDACTED] for [REDACTED]'] }, '[REDACTED]': 1 });
  });

  test('an answer is walked only when its text could hold a key: plain, URL-encoded and escaped spellings are found, a clean answer comes back as parsed', () => {
    const secrets = [API_ID, API_KEY];
    const answer = (text: string) => redactAnswer(text, JSON.parse(text), secrets);
    expect(answer(JSON.stringify({ echo: API_KEY }))).toEqual({ echo: '[REDACTED]' });
    expect(answer(`{"owner":"${API_ID}"}`)).toEqual({ owner: '[REDACTED]' });
    expect(answer(`{"url":"https://x.example/?k=${encodeURIComponent(API_KEY)}&n=1"}`)).toEqual({ url: 'https://x.example/?k=[REDACTED]&n=1' });
    expect(answer(`{"${escaped}":"a\\nb"}`)).toEqual({ '[REDACTED]': 'a\nb' });
    const clean = `{"id":"${JOB_ID}","status":"done"}`;
    const parsed = JSON.parse(clean) as unknown;
    expect(redactAnswer(clean, parsed, secrets)).toBe(parsed);
  });

  test('an error body spelling the key with \\u escapes is scrubbed too', async () => {
    server.reset();
    server.script('GET', `/api/ai_shorts/${JOB_ID}/`, { status: 403, text: `{"detail":"key ${escaped} revoked"}` });
    const { client } = testClient(server.url);
    const error = await rejectionOf(client.aiShorts.get(JOB_ID));
    await client.close();

    expect((error as ApiStatusError).body).toEqual({ detail: 'key [REDACTED] revoked' });
    expect(error.message).toContain('key [REDACTED] revoked');
  });

  test('a run whose job fails with the key in its failed_reason prints and stores only the scrubbed text', async () => {
    server.reset();
    const key = 'live-key-7fa2c9e1d4';
    const failed = { id: JOB_ID, status: 'failed', failed_reason: `render refused: key ${key} lacks the 4K plan` };
    server.script('POST', '/api/ai_shorts/', { status: 201, json: { id: JOB_ID, status: 'pending' } });
    server.script('GET', '/api/ai_shorts/', ...Array.from({ length: 5 }, () => ({ status: 200, json: [failed] })));
    server.script('GET', `/api/ai_shorts/${JOB_ID}/`, ...Array.from({ length: 5 }, () => ({ status: 200, json: failed })));
    const dir = mkdtempSync(join(tmpdir(), 'reelpipe-echo-'));
    try {
      writeFileSync(join(dir, 'echo.yaml'), 'version: 1\nname: echo\nsteps:\n  - id: s\n    kind: ai_short\n' +
        '    with: { script: "A lamp.", style: Cinematic, aspect_ratio: 9x16 }\n');
      const env = { REELPIPE_BASE_URL: server.url, REELPIPE_API_ID: 'acct-echo-0001', REELPIPE_API_KEY: key };
      const run = await runCli(['run', 'echo.yaml', '--time-scale', '0.001'], { cwd: dir, env, timeout: 60_000 });
      const status = await runCli(['status', 'echo.yaml'], { cwd: dir, env, timeout: 60_000 });

      expect(run.exitCode, run.stderr).toBe(1);
      expect(status.stdout).toContain('render refused: key [REDACTED] lacks the 4K plan');
      const db = new Database(join(dir, 'state', 'reelpipe.db'), { readonly: true });
      const stored = JSON.stringify(['jobs', 'job_results', 'events'].map((table) => db.prepare(`SELECT * FROM ${table}`).all()));
      db.close();
      expect(stored).toContain('[REDACTED]');
      for (const text of [run.stdout, run.stderr, status.stdout, stored]) expect(text).not.toContain(key);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
