import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import {
  ApiBadRequestError, ApiInDoubtError, ApiNotFoundError, OPERATIONS, OPERATION_NAMES, type ServiceClient,
} from '../../src/api/index.js';
import { startScriptedServer, type ScriptedServer } from '../helpers/scripted-server.js';
import { OPERATION_CASES, type OperationCase } from './fixtures/operation-cases.js';
import { API_ID, API_KEY, rejectionOf, testClient, type TestClient } from './fixtures/test-client.js';

let server: ScriptedServer;
let current: TestClient | undefined;
const open = (): TestClient => (current = testClient(server.url));

beforeAll(async () => {
  server = await startScriptedServer();
});
afterEach(async () => {
  await current?.client.close();
  current = undefined;
  expect(server.unscripted).toEqual([]);
  server.reset();
});
afterAll(() => server.close());

const isCreatingPost = (c: OperationCase) => OPERATIONS[c.name].effect === 'creates';
const succeed = (c: OperationCase) => ({ status: c.status, ...(c.answer === undefined ? {} : { json: c.answer }) });
const run = (c: OperationCase, client: ServiceClient) => c.call(client);

describe('the operation table', () => {
  test('every operation of the client is driven by these tests', () => {
    expect(OPERATION_CASES.map((c) => c.name).sort()).toEqual([...OPERATION_NAMES].sort());
  });

  test('exactly the POSTs that make a job are marked as creating', () => {
    const creating = OPERATION_NAMES.filter((name) => OPERATIONS[name].effect === 'creates');
    expect(creating.sort()).toEqual(OPERATION_CASES.filter((c) => c.method === 'POST').map((c) => c.name).sort());
  });
});

describe.each(OPERATION_CASES)('$name ($method $path)', (c) => {
  test('a success is sent with the credentials and parses into the schema type', async () => {
    server.script(c.method, c.path, succeed(c));
    const result = await run(c, open().client);

    expect(result).toEqual(c.answer);
    const [seen, ...others] = server.requests;
    expect(others).toEqual([]);
    expect(seen).toMatchObject({ method: c.method, path: c.path, query: c.sentQuery ?? {} });
    expect(seen?.headers['x-api-id']).toBe(API_ID);
    expect(seen?.headers['x-api-key']).toBe(API_KEY);
    if (c.sentBody === undefined) expect(seen?.body).toBe('');
    else {
      expect(JSON.parse(seen?.body ?? 'null')).toEqual(c.sentBody);
      expect(seen?.headers['content-type']).toBe('application/json');
    }
  });

  test('a DRF field error becomes ApiBadRequestError naming the field, not retried', async () => {
    server.script(c.method, c.path, { status: 400, json: { link: ['Invalid link ID'] } });
    const error = await rejectionOf(run(c, open().client));

    expect(error).toBeInstanceOf(ApiBadRequestError);
    expect(error.message).toContain(`${c.name}: HTTP 400: link: Invalid link ID`);
    expect(server.requests).toHaveLength(1);
  });

  test('a 404 detail becomes ApiNotFoundError', async () => {
    server.script(c.method, c.path, { status: 404, json: { detail: 'No Job matches the given query.' } });
    const error = await rejectionOf(run(c, open().client));

    expect(error).toBeInstanceOf(ApiNotFoundError);
    expect(error.message).toContain('No Job matches the given query.');
    expect(server.requests).toHaveLength(1);
  });

  test('a 429 with Retry-After: 1 is waited out, then the same call succeeds', async () => {
    server.script(c.method, c.path, { status: 429, headers: { 'retry-after': '1' }, json: { detail: 'slow down' } }, succeed(c));
    const { client, waits } = open();

    expect(await run(c, client)).toEqual(c.answer);
    expect(waits).toEqual([1000]);
    expect(server.requests).toHaveLength(2);
  });

  if (isCreatingPost(c)) {
    test('a connection dropped after the POST was received is in doubt and never resent', async () => {
      server.script(c.method, c.path, { drop: true }, succeed(c));
      const { client, waits } = open();
      const error = await rejectionOf(run(c, client));

      expect(error).toBeInstanceOf(ApiInDoubtError);
      expect(error.message).toContain(c.name);
      expect(server.requests).toHaveLength(1);
      expect(waits).toEqual([]);
      server.reset(); // the unused success reply
    });
  } else {
    test('a dropped connection is retried after a jittered backoff', async () => {
      server.script(c.method, c.path, { drop: true }, succeed(c));
      const { client, waits } = open();

      expect(await run(c, client)).toEqual(c.answer);
      expect(server.requests).toHaveLength(2);
      expect(waits).toEqual([250]); // random 0.5 × first ceiling 500 ms
    });
  }
});
