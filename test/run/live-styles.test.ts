import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { clientFromEnv } from '../../src/api/index.js';
import { InvalidInputError } from '../../src/errors.js';
import { loadManifest } from '../../src/manifest/index.js';
import { listed } from '../../src/plan/index.js';
import { toNewJobs } from '../../src/run/execute-plan.js';
import { planForRun } from '../../src/run/live-styles.js';
import { planWithState } from '../../src/run/plan-with-state.js';
import { RunEvents } from '../../src/run/run-events.js';
import { openStore, stateAt } from '../../src/state/index.js';
import { ManualClock } from '../../src/util/clock.js';
import { startScriptedServer, type ScriptedServer } from '../helpers/scripted-server.js';

/**
 * HTML ad style ids are checked against the service's own catalogue, never a list of ours: the
 * copy the state database keeps of its last read offline, the live list when a run is about to
 * send, none at all when neither is known (then ids are priced and left for the run).
 */
let dir: string;
let statePath: string;
let server: ScriptedServer | undefined;
const clock = new ManualClock(Date.UTC(2026, 10, 20, 9, 30));
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'reelpipe-styles-'));
  statePath = join(dir, 'state', 'reelpipe.db');
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const SERVICE = 'https://api.example.com';
const styleList = (ids: string[]) => ids.map((id) => ({ id, name: id, type: 'game', interactive: true, thumbnail_url: null }));

async function manifestWith(styles: string) {
  writeFileSync(join(dir, 'm.yaml'), `
version: 1
name: styles
steps:
  - id: ads
    kind: html_ads
    with: { link: 3f2a6c1e-8b4d-4e7f-9a1b-2c3d4e5f6a7b, style_ids: ${styles} }
`);
  return loadManifest(join(dir, 'm.yaml'), { env: {}, cwd: dir });
}

const plan = async (styles: string) => listed(await planWithState(await manifestWith(styles), { statePath, service: SERVICE }));

describe('offline, with no catalogue known', () => {
  test('ids nobody has seen are priced, 10 credits an ad, and said to be checked before spending', async () => {
    const p = await plan('[never-seen-1, never-seen-2]');
    expect(p.jobs.map((j) => [j.request.style_ids, j.credits?.expected])).toEqual([[['never-seen-1', 'never-seen-2'], 20]]);
    expect(p.warnings).toContainEqual(expect.stringMatching(/style ids of ads are priced \(10 credits an ad\) but not checked: .* the run checks them against the service before anything is sent/));
  });

  test('style_ids: all cannot be planned: refused where it is written, saying how to get the catalogue', async () => {
    const error = await plan('all').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as Error).message).toMatch(/m\.yaml:\d+:\d+ {2}steps\.0\.with\.style_ids: style_ids: all needs the service's catalogue of styles, .*`reelpipe catalogue styles`/);
  });
});

describe('offline, with the copy of the catalogue the state database keeps', () => {
  beforeEach(() => stateAt(statePath).cacheCatalogue(SERVICE, 'styles', styleList(['spin-wheel', 'quiz-3q']), clock.now()));

  test('an id it does not offer is refused where it is written, with the closest and the copy\'s date', async () => {
    const error = await plan('[spin-wheel, quiz-3x]').catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/steps\.0\.with\.style_ids\.1: "quiz-3x" is not offered by the service's catalogue as read on 2026-11-20 09:30 UTC .*; did you mean quiz-3q\? \(accepted: all, spin-wheel, quiz-3q\)/);
  });

  test('style_ids: all is every style of the copy', async () => {
    expect((await plan('all')).jobs.map((j) => j.request.style_ids)).toEqual([['spin-wheel', 'quiz-3q']]);
  });

  test('the copy of another service address is not this one\'s', async () => {
    const p = await planWithState(await manifestWith('[quiz-3x]'), { statePath, service: 'https://other.example.com' });
    expect(p.warnings).toContainEqual(expect.stringMatching(/not checked/));
  });
});

describe('style_ids: all keeps the jobs already sent as they were', () => {
  const ids = (n: number) => Array.from({ length: n }, (_, i) => `style-${String(i + 1).padStart(2, '0')}`);

  test('styles added since make a new job, styles removed are said; the sent jobs keep their keys', async () => {
    await stateAt(statePath).cacheCatalogue(SERVICE, 'styles', styleList(ids(24)), clock.now());
    const first = await plan('all');
    expect(first.jobs.map((j) => (j.request.style_ids as string[]).length)).toEqual([20, 4]);
    const store = await openStore(statePath, clock);
    try {
      await store.syncPlan(first.manifestId, toNewJobs(first));
      for (const job of first.jobs) await store.write({ key: job.key, move: { to: 'submitting', change: {}, type: 'job:intent' } });
    } finally {
      await store.close();
    }
    // The service drops style-24 and adds two: a chunked re-expansion would change the 2nd job's key.
    await stateAt(statePath).cacheCatalogue(SERVICE, 'styles', styleList([...ids(23), 'new-a', 'new-b']), clock.now());
    const again = await plan('all');
    expect(again.jobs.map((j) => j.key)).toEqual([...first.jobs.map((j) => j.key), expect.stringMatching(/^ads:/)]);
    expect(again.jobs[2]!.request.style_ids).toEqual(['new-a', 'new-b']);
    expect(again.warnings).toContainEqual(expect.stringMatching(/2 styles added to the service's catalogue .* since its ads were sent \(new-a, new-b\): a new job makes them/));
    expect(again.warnings).toContainEqual(expect.stringMatching(/1 style no longer offered by .* \(style-24\): their ads stay as they were made/));
  });
});

describe('a run reads the live catalogue before anything is sent', () => {
  async function liveService(ids: string[]) {
    server = await startScriptedServer();
    server.script('GET', '/api/html_interactive_ads/styles/', { status: 200, json: styleList(ids) });
    return { REELPIPE_BASE_URL: server.url, REELPIPE_API_ID: 'id', REELPIPE_API_KEY: 'key' };
  }
  const run = async (styles: string, env: NodeJS.ProcessEnv, statuses = new Map<string, string>()) => (await planForRun({
    manifest: await manifestWith(styles), client: () => clientFromEnv(env), clock, progress: new RunEvents(), statusOf: (key) => statuses.get(key), statePath, service: env.REELPIPE_BASE_URL,
    select: (whole) => whole,
  }).then(({ plan }) => listed(plan)));

  test('an id the service no longer offers refuses the run (nothing sent), and the live list is kept for offline commands', async () => {
    const env = await liveService(['spin-wheel']);
    const error = await run('[spin-wheel, quiz-3q]', env).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as Error).message).toMatch(/^styles: HTML ad styles the service does not offer; nothing was submitted\n.*"quiz-3q" is not offered by the service's catalogue \(accepted: all, spin-wheel\)/);
    expect(server!.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /api/html_interactive_ads/styles/']);
    expect(await stateAt(statePath).cachedCatalogue(server!.url, 'styles')).toMatchObject({ fetchedAt: clock.now(), body: styleList(['spin-wheel']) });
  });

  test('style_ids: all expands to what the service offers now, with no copy kept before', async () => {
    const env = await liveService(['spin-wheel', 'quiz-3q', 'swipe-deck']);
    expect((await run('all', env)).jobs.map((j) => j.request.style_ids)).toEqual([['spin-wheel', 'quiz-3q', 'swipe-deck']]);
  });

  test('a manifest whose HTML ad jobs were all sent reads nothing: a finished re-run makes no request', async () => {
    const env = await liveService(['spin-wheel']);
    const planned = await plan('[spin-wheel]');
    const sent = new Map(planned.jobs.map((j) => [j.key, 'downloaded']));
    await run('[spin-wheel]', env, sent);
    expect(server!.requests).toEqual([]);
  });
});
