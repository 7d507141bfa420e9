import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import {
  ApiBadRequestError, ApiInvalidResponseError, ApiNotFoundError, ApiStatusError,
} from '../../src/api/index.js';
import { InsufficientCreditsError, InvalidInputError } from '../../src/errors.js';
import { startScriptedServer, type ScriptedServer } from '../helpers/scripted-server.js';
import { JOB_ID, LINK_ID } from './fixtures/operation-cases.js';
import { rejectionOf, testClient, type TestClient } from './fixtures/test-client.js';

let server: ScriptedServer;
let current: TestClient | undefined;
const open = () => (current = testClient(server.url));

beforeAll(async () => {
  server = await startScriptedServer();
});
afterEach(async () => {
  await current?.client.close();
  server.reset();
});
afterAll(() => server.close());

const SHORT = `/api/ai_shorts/${JOB_ID}/`;

describe('error bodies become readable messages', () => {
  test.each([
    ['a bare array of strings', ['AI model not found'], 'aiShorts.get: HTTP 400: AI model not found', { non_field_errors: ['AI model not found'] }],
    ['field lists', { script: ['This field is required.'], style: ['"Vaporwave" is not a valid choice.'] }, 'script: This field is required.; style: "Vaporwave" is not a valid choice.', undefined],
    ['a nested serializer error', { caption_setting: { style: ['Invalid style.'] } }, 'caption_setting: style: Invalid style.', undefined],
    ['a proxy page in plain text', '<html>Bad Request</html>', 'HTTP 400: <html>Bad Request</html>', undefined],
    ['an empty body', '', 'HTTP 400: no details', undefined],
  ])('%s', async (_name, body, message, fieldErrors) => {
    server.script('GET', SHORT, typeof body === 'string' ? { status: 400, text: body } : { status: 400, json: body });
    const error = await rejectionOf(open().client.aiShorts.get(JOB_ID));

    expect(error).toBeInstanceOf(ApiBadRequestError);
    expect(error.message).toContain(message);
    if (fieldErrors) expect((error as ApiStatusError).fieldErrors).toEqual(fieldErrors);
  });

  test('the text generator answers {"error": ...} under /sse/', async () => {
    server.script('GET', `/sse/text_generator/${JOB_ID}/`, { status: 404, json: { error: 'Task not found' } });
    const error = await rejectionOf(open().client.textGenerator.get(JOB_ID));

    expect(error).toBeInstanceOf(ApiNotFoundError);
    expect(error.message).toBe('textGenerator.get: HTTP 404: Task not found');
  });
});

describe('answers that break the schema', () => {
  test.each([
    ['a missing required field', { status: 'done' }, 'id: '],
    ['a wrong type', { id: JOB_ID, status: 'done', progress: 'half' }, 'progress: '],
    ['an unknown state', { id: JOB_ID, status: 'exploded' }, 'status: Invalid option'],
    ['a nested wrong type', { id: JOB_ID, status: 'done', caption_setting: { font_size: 'big' } }, 'caption_setting.font_size: '],
  ])('%s names the operation and the field', async (_name, answer, field) => {
    server.script('GET', SHORT, { status: 200, json: answer });
    const error = await rejectionOf(open().client.aiShorts.get(JOB_ID));

    expect(error).toBeInstanceOf(ApiInvalidResponseError);
    expect(error.message).toContain(`aiShorts.get: unexpected response: ${field}`);
  });

  test('a list item is named by its index', async () => {
    server.script('GET', '/api/ai_shorts/', { status: 200, json: [{ id: JOB_ID, status: 'done' }, { id: JOB_ID }] });
    const error = await rejectionOf(open().client.aiShorts.list({ ids: [JOB_ID] }));

    expect(error.message).toContain('aiShorts.list: unexpected response: 1.status: ');
  });

  test('a body that is not JSON', async () => {
    server.script('GET', SHORT, { status: 200, text: '<html>maintenance</html>' });
    const error = await rejectionOf(open().client.aiShorts.get(JOB_ID));

    expect(error).toBeInstanceOf(ApiInvalidResponseError);
    expect(error.message).toContain('body is not JSON: "<html>maintenance</html>"');
  });
});

describe('a bad request never leaves the process', () => {
  test.each([
    ['an unknown enum value', () => open().client.aiShorts.create({ aspect_ratio: '9x16', script: 'Hi', style: 'Vaporwave' as '3D' }), 'style: Invalid option: expected one of "4K realistic"|"3D"'],
    ['an unknown field', () => open().client.links.update(LINK_ID, { titel: 'typo' } as never), 'Unrecognized key: "titel"'],
    ['a missing required field', () => open().client.htmlAds.create({ link: LINK_ID } as never), 'style_ids: '],
    ['a Boreal cross-field rule', () => open().client.boreal.create({ prompt: 'fox', model: 'boreal-h3', duration: 8, aspect_ratio: '16:9' }), 'aspect_ratio: boreal-h3 accepts only auto'],
    ['an id that is not a UUID', () => open().client.aiShorts.get('../../admin'), "id: must be a UUID"],
    ['too many ids', () => open().client.lipsyncs.list({ ids: Array.from({ length: 101 }, () => JOB_ID) }), 'query.ids: '],
  ])('%s is an InvalidInputError naming the field', async (_name, call, message) => {
    const error = await rejectionOf(call());

    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).code).toBe('INVALID_INPUT');
    expect(error.message).toContain('request rejected before sending');
    expect(error.message).toContain(message);
    expect(server.requests).toEqual([]);
  });
});

describe('running out of credits stops the run', () => {
  test.each([
    ['402', 402, { detail: 'Payment required' }],
    ['a 400 about credits', 400, { detail: 'Insufficient credits to create this video.' }],
    ['a 403 about the balance', 403, ['Not enough credits remaining']],
  ])('%s becomes InsufficientCreditsError', async (_name, status, body) => {
    server.script('POST', '/api/boreal/', { status, json: body });
    const error = await rejectionOf(open().client.boreal.create({ prompt: 'fox', duration: 5 }));

    expect(error).toBeInstanceOf(InsufficientCreditsError);
    expect((error as InsufficientCreditsError).cause).toBeInstanceOf(ApiStatusError);
  });

  test('a field error that merely mentions credits is still a bad request', async () => {
    server.script('POST', '/api/boreal/', { status: 400, json: { prompt: ['Prompt must credit the artist.'] } });
    expect(await rejectionOf(open().client.boreal.create({ prompt: 'fox', duration: 5 }))).toBeInstanceOf(ApiBadRequestError);
  });
});
