import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createClient, type ServiceClient } from '../../src/api/index.js';
import { loadManifest } from '../../src/manifest/index.js';
import { planManifest, type Plan } from '../../src/plan/index.js';
import { checkHtmlAdStyles } from '../../src/run/check-styles.js';
import { RunEvents } from '../../src/run/run-events.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';

let dir: string;
let sandbox: Sandbox;
let client: ServiceClient;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'reelpipe-styles-'));
  sandbox = await startSandbox({ speed: 1000 });
  client = createClient({ baseUrl: sandbox.url, apiId: 'id', apiKey: 'key' });
});
afterAll(async () => {
  await client.close();
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

async function planWithStyles(styles: string): Promise<Plan> {
  writeFileSync(join(dir, 'm.yaml'), `
version: 1
name: styles
steps:
  - id: ads
    kind: html_ads
    with: { link: 3f2a6c1e-8b4d-4e7f-9a1b-2c3d4e5f6a7b, style_ids: ${styles} }
`);
  return planManifest(await loadManifest(join(dir, 'm.yaml'), { env: {}, cwd: dir }));
}

function notesOf(events: RunEvents): string[] {
  const notes: string[] = [];
  events.on('run:note', (e) => notes.push(e.message));
  return notes;
}

describe('checking planned HTML ad styles against the live catalogue', () => {
  test('the snapshot behind `style_ids: all` matches what the sandbox serves: nothing to say', async () => {
    const events = new RunEvents();
    const notes = notesOf(events);
    expect(await checkHtmlAdStyles(await planWithStyles('all'), client, events, () => true)).toEqual([]);
    expect(notes).toEqual([]);
  });

  test('a style the service does not list is announced before anything is submitted', async () => {
    const events = new RunEvents();
    const notes = notesOf(events);
    const missing = await checkHtmlAdStyles(await planWithStyles('[spin-wheel, holo-deck]'), client, events, () => true);
    expect(missing).toEqual(['holo-deck']);
    expect(notes).toEqual(['warning: the service does not list HTML ad style holo-deck; jobs using it will likely be refused']);
  });

  test('jobs already submitted are not checked, so a finished manifest sends no request', async () => {
    const before = sandbox.stats().requests['GET /api/html_interactive_ads/styles/'] ?? 0;
    const missing = await checkHtmlAdStyles(await planWithStyles('[holo-deck]'), client, new RunEvents(), () => false);
    expect(missing).toEqual([]);
    expect(sandbox.stats().requests['GET /api/html_interactive_ads/styles/'] ?? 0).toBe(before);
  });
});
