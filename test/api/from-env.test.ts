import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { clientFromEnv } from '../../src/api/index.js';
import { InvalidInputError, MissingConfigError } from '../../src/errors.js';
import { createLogger } from '../../src/util/logger.js';
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
    const error = (() => {
      try {
        clientFromEnv(env, { logger: silent });
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();

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
