import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createClient, type ServiceClient } from '../../src/api/index.js';
import { loadManifest } from '../../src/manifest/index.js';
import { planManifest, type Plan } from '../../src/plan/index.js';
import { checkHtmlAdStyles } from '../../src/run/submit/check-styles.js';
import { RunEvents } from '../../src/run/run-events.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { InvalidInputError } from '../../src/errors.js';
import { startScriptedServer } from '../helpers/scripted-server.js';

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

/**
 * A plan of one HTML ad job. `validate` refuses a style the snapshot lacks, so a style the live
 * catalogue lacks (as after the service dropped one) is put into the planned request here.
 */
async function planWithStyles(styles: string): Promise<Plan> {
  writeFileSync(join(dir, 'm.yaml'), `
version: 1
name: styles
steps:
  - id: ads
    kind: html_ads
    with: { link: 3f2a6c1e-8b4d-4e7f-9a1b-2c3d4e5f6a7b, style_ids: ${styles === 'all' ? 'all' : '[quiz-3q]'} }
`);
  const plan = planManifest(await loadManifest(join(dir, 'm.yaml'), { env: {}, cwd: dir }));
  if (styles !== 'all') for (const job of plan.jobs) job.request.style_ids = styles.slice(1, -1).split(',').map((id) => id.trim());
  return plan;
}

function notesOf(events: RunEvents): string[] {
  const notes: string[] = [];
  events.on('run:note', (e) => notes.push(e.message));
  return notes;
}

describe('checking planned HTML ad styles against the live catalogue', () => {
  test('the snapshot behind `style_ids: all` matches what the sandbox serves: the run goes on', async () => {
    const events = new RunEvents();
    const notes = notesOf(events);
    await expect(checkHtmlAdStyles(await planWithStyles('all'), client, events, () => true)).resolves.toBeUndefined();
    expect(notes).toEqual([]);
  });

  test('a style the live list no longer offers refuses the run before anything is submitted, naming what is accepted', async () => {
    const service = await startScriptedServer();
    const live = createClient({ baseUrl: service.url, apiId: 'id', apiKey: 'key' });
    try {
      const styles = { status: 200, json: [{ id: 'spin-wheel', name: 'Spin the Wheel', type: 'game', interactive: true, thumbnail_url: null }] };
      service.script('GET', '/api/html_interactive_ads/styles/', styles);
      const error = await checkHtmlAdStyles(await planWithStyles('[spin-wheel, quiz-3q]'), live, new RunEvents(), () => true).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidInputError);
      expect((error as Error).message).toMatch(/nothing was submitted\n.*steps\.ads\.with\.style_ids: the service does not offer style 'quiz-3q' \(accepted: spin-wheel\)/);
      expect(service.requests.filter((r) => r.method === 'POST')).toEqual([]);
    } finally {
      await live.close();
      await service.close();
    }
  });

  test('jobs already submitted are not checked, so a finished manifest sends no request', async () => {
    const before = sandbox.stats().requests['GET /api/html_interactive_ads/styles/'] ?? 0;
    await checkHtmlAdStyles(await planWithStyles('[quiz-3q]'), client, new RunEvents(), () => false);
    expect(sandbox.stats().requests['GET /api/html_interactive_ads/styles/'] ?? 0).toBe(before);
  });
});
