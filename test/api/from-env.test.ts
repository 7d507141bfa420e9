import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { clientFromEnv, createClient } from '../../src/api/index.js';
import { InvalidInputError, MissingConfigError } from '../../src/errors.js';
import { createLogger } from '../../src/util/logger.js';
import { runCli } from '../helpers/cli.js';
import { startScriptedServer, type ScriptedServer } from '../helpers/scripted-server.js';
import { rejectionOf } from './fixtures/test-client.js';

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(() => server.close());

const silent = createLogger({ level: 'silent', env: {} });
const fullEnv = () => ({ REELPIPE_API_ID: 'env-id-0042', REELPIPE_API_KEY: 'env-key-secret-0042', REELPIPE_BASE_URL: server.url });

describe('clientFromEnv', () => {
  test.each(['REELPIPE_API_ID', 'REELPIPE_API_KEY', 'REELPIPE_BASE_URL'])('an unset %s is a MissingConfigError naming it', (name) => {
    const env: NodeJS.ProcessEnv = { ...fullEnv(), [name]: undefined };
    const error = thrownBy(() => clientFromEnv(env, { logger: silent }));

    expect(error).toBeInstanceOf(MissingConfigError);
    expect((error as MissingConfigError).variable).toBe(name);
    expect((error as MissingConfigError).message).toMatch(new RegExp(`^${name} is not set: `));
  });

  test('an empty or blank value counts as unset', () => {
    expect(() => clientFromEnv({ ...fullEnv(), REELPIPE_API_KEY: '  ' }, { logger: silent })).toThrow(/REELPIPE_API_KEY is not set/);
  });

  test('a base address that is not http(s) names the variable and what would be accepted', () => {
    expect(() => clientFromEnv({ ...fullEnv(), REELPIPE_BASE_URL: 'api.example.com' }, { logger: silent })).toThrow(InvalidInputError);
    expect(() => clientFromEnv({ ...fullEnv(), REELPIPE_BASE_URL: 'ftp://x' }, { logger: silent })).toThrow(
      /REELPIPE_BASE_URL: must be an http\(s\) address such as https:\/\/api\.example\.com/,
    );
  });

  test('the credentials from the environment are sent as X-API-ID and X-API-KEY', async () => {
    server.script('GET', '/api/remaining_credits/', { status: 200, json: { remaining_credits: 12 } });
    const client = clientFromEnv(fullEnv(), { logger: silent });
    try {
      expect(await client.credits.remaining()).toEqual({ remaining_credits: 12 });
    } finally {
      await client.close();
    }
    expect(server.requests[0]?.headers).toMatchObject({ 'x-api-id': 'env-id-0042', 'x-api-key': 'env-key-secret-0042' });
  });

  test('overrides win over the environment', async () => {
    server.reset();
    server.script('GET', '/api/remaining_credits/', { status: 401, json: { detail: 'Invalid key.' } });
    const client = clientFromEnv(fullEnv(), { logger: silent, apiKey: 'override-key-77' });
    try {
      await rejectionOf(client.credits.remaining());
    } finally {
      await client.close();
    }
    expect(server.requests[0]?.headers['x-api-key']).toBe('override-key-77');
  });
});

/** Runs `fn` expecting it to throw; returns what it threw. */
function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (caught) {
    return caught;
  }
  throw new Error('expected a throw');
}

describe('a credential that cannot be sent as a header', () => {
  const BAD: [string, string, string][] = [
    ['a zero-width space', 'key\u200bsecret-0042', 'U+200B'],
    ['a newline inside', 'key-secret\n0042', 'U+000A'],
    ['a carriage return inside', 'key-secret\r0042', 'U+000D'],
    ['an inner space', 'key secret 0042', 'U+0020'],
    ['an accented letter', 'clé-secret-0042', 'U+00E9'],
    ['a non-breaking space', 'key-secret-0042\u00a0x', 'U+00A0'],
  ];

  test.each(BAD)('%s in REELPIPE_API_KEY is a configuration error naming the variable, never the value', (_name, value, code) => {
    const error = thrownBy(() => clientFromEnv({ ...fullEnv(), REELPIPE_API_KEY: value }, { logger: silent }));

    expect(error).toBeInstanceOf(InvalidInputError);
    const { message, issues } = error as InvalidInputError;
    expect(issues[0]?.path).toBe('REELPIPE_API_KEY');
    expect(message).toContain(code);
    expect(message).not.toContain('secret');
    expect(message).not.toContain(value);
  });

  test('in REELPIPE_API_ID too, and in the options of createClient', () => {
    const fromEnv = thrownBy(() => clientFromEnv({ ...fullEnv(), REELPIPE_API_ID: 'id\u200b-0042' }, { logger: silent }));
    expect((fromEnv as InvalidInputError).issues[0]?.path).toBe('REELPIPE_API_ID');
    const fromOptions = thrownBy(() => createClient({ baseUrl: server.url, apiId: 'id-0042', apiKey: 'key\u200b-0042', logger: silent }));
    expect((fromOptions as InvalidInputError).issues[0]?.path).toBe('apiKey');
  });

  test('`reelpipe run` exits 2 naming REELPIPE_API_KEY, sends nothing and leaves no job submitting', async () => {
    server.reset();
    const dir = mkdtempSync(join(tmpdir(), 'reelpipe-badkey-'));
    try {
      writeFileSync(join(dir, 'talk.yaml'), TALK);
      const env = { ...fullEnv(), REELPIPE_API_KEY: 'env-key\u200b-secret-0042' };
      const run = await runCli(['run', 'talk.yaml'], { cwd: dir, env, timeout: 60_000 });

      expect(run.exitCode, run.stderr).toBe(2);
      expect(run.stderr).toContain('REELPIPE_API_KEY');
      expect(run.stderr).not.toContain('secret-0042');
      expect(server.requests).toEqual([]);
      const status = await runCli(['status', 'talk.yaml', '--json'], { cwd: dir, env: fullEnv(), timeout: 60_000 });
      expect(status.stdout).not.toContain('submitting');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

const TALK = `
version: 1
name: shorts
outputs: out
steps:
  - id: shorts
    kind: ai_short
    for_each: { rows: [{ s: "A lamp for late nights." }, { s: "A kettle that sings." }] }
    with: { script: "{{ row.s }}", style: Cinematic, aspect_ratio: 9x16 }
`;
