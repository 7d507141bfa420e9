import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createClient, type ServiceClient } from '../../src/api/index.js';
import { MAX_MUSIC_PAGES, MAX_TEMPLATE_DETAILS, MUSIC_PAGE_SIZE, readCatalogue } from '../../src/cli/catalogue/catalogues.js';
import { startScriptedServer, type ScriptedServer } from '../helpers/scripted-server.js';

let server: ScriptedServer;
let client: ServiceClient;
beforeEach(async () => {
  server = await startScriptedServer();
  client = createClient({ baseUrl: server.url, apiId: 'id', apiKey: 'key', retry: { maxAttempts: 1 } });
});
afterEach(async () => {
  await client.close();
  await server.close();
});

const track = (id: number) => ({ id, name: `Track ${id}`, url: `https://cdn/m${id}.m4a`, category: ['calm'], duration: 60 });

describe('catalogue bounds: a huge library is cut, and the cut is said', () => {
  test(`musics reads at most ${MAX_MUSIC_PAGES} pages of ${MUSIC_PAGE_SIZE}`, async () => {
    const count = (MAX_MUSIC_PAGES + 10) * MUSIC_PAGE_SIZE;
    const pages = Array.from({ length: MAX_MUSIC_PAGES }, (_, p) => ({
      status: 200,
      json: { count, page: p + 1, page_size: MUSIC_PAGE_SIZE, results: Array.from({ length: MUSIC_PAGE_SIZE }, (_, i) => track(p * MUSIC_PAGE_SIZE + i + 1)) },
    }));
    server.script('GET', '/api/musics/', ...pages);
    const list = await readCatalogue(client, 'musics', { search: 'calm' });
    expect(server.requestsTo('GET', '/api/musics/').map((r) => r.query.page)).toEqual(pages.map((_, p) => String(p + 1)));
    expect(server.unscripted).toEqual([]);
    expect(list.rows).toHaveLength(MAX_MUSIC_PAGES * MUSIC_PAGE_SIZE);
    expect(list.notes[0]).toBe(`first ${MAX_MUSIC_PAGES * MUSIC_PAGE_SIZE} of ${count} tracks shown (at most ${MAX_MUSIC_PAGES} pages): narrow with --category or --search`);
  });

  test('musics stops at the last page, however many pages it would allow', async () => {
    server.script('GET', '/api/musics/', { status: 200, json: { count: 3, page: 1, page_size: MUSIC_PAGE_SIZE, results: [track(1), track(2), track(3)] } });
    const list = await readCatalogue(client, 'musics');
    expect([list.rows.length, server.requests.length]).toEqual([3, 1]);
    expect(list.notes).toHaveLength(1);
  });

  test(`templates reads the variables of the first ${MAX_TEMPLATE_DETAILS} only`, async () => {
    const entries = Array.from({ length: MAX_TEMPLATE_DETAILS + 2 }, (_, i) => ({ template_id: `vid_${i}`, name: `T${i}`, aspect_ratio: '9x16' }));
    server.script('GET', '/api/custom_templates/', { status: 200, json: entries });
    for (const entry of entries.slice(0, MAX_TEMPLATE_DETAILS)) {
      server.script('GET', `/api/custom_templates/${entry.template_id}/`, { status: 200, json: { ...entry, variables: { headline: { type: 'text' } } } });
    }
    const list = await readCatalogue(client, 'templates');
    expect(server.unscripted).toEqual([]);
    expect(list.rows.at(0)).toEqual(['vid_0', 'T0', '9x16', 'headline (text)']);
    expect(list.rows.at(-1)).toEqual([`vid_${MAX_TEMPLATE_DETAILS + 1}`, `T${MAX_TEMPLATE_DETAILS + 1}`, '9x16', '(not read)']);
    expect(list.notes[0]).toBe(`variables read for the first ${MAX_TEMPLATE_DETAILS} of ${MAX_TEMPLATE_DETAILS + 2} templates`);
  });
});
