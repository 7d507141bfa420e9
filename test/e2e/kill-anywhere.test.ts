import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { STORES, TIME_SCALE, checkOutputs, countStatuses, openProject, sumCredits, type Project } from './harness.js';

/**
 * Kinds the runner can reconcile (lipsync by time window, ad clones by list), so a kill between
 * POST and commit must end in "found", never in a second job. The link is made beforehand. 21
 * jobs, so every killed run still has work left when it reaches its point: a run that finished
 * everything before its Nth arrival would never be killed, and the test would depend on speed.
 */
const LINES = ['the trail starts here', 'the river crossing', 'the summit at dawn', 'the long way down', 'the forest edge', 'the ridge walk', 'the old bridge', 'the valley floor', 'the high meadow', 'the last climb', 'the lake shore', 'the way home'];
const LANGUAGES = ['de', 'fr', 'it', 'es', 'pt', 'nl', 'pl', 'sv', 'da'];
const JOBS = LINES.length + LANGUAGES.length;
const manifest = (linkId: string) => `
version: 1
name: crash
outputs: out
concurrency: 3
steps:
  - id: talk
    kind: lipsync_v2
    for_each:
      rows:
${LINES.map((line, i) => `        - { text: "${i + 1}: ${line}." }`).join('\n')}
    with:
      video_inputs:
        - character: { type: avatar, avatar_id: 5eed0000-0000-4000-8000-000000000101 }
          voice: { type: text, input_text: "{{ row.text }}" }
  - id: clones
    kind: ad_clone
    estimate_credits: { low: 84, expected: 84, high: 168 }
    matrix: { language: [${LANGUAGES.join(', ')}] }
    name: "clone-{{ matrix.language }}"
    with: { link: ${linkId}, video_url: https://example.com/ads/reference.mp4, language: "{{ matrix.language }}" }
`;

/** Each run is killed the Nth time it reaches a point; together they cover every instant named in the issue. */
const KILLS = [
  'before-post:1',
  'after-post:1',
  'after-post:2',
  'after-poll:2',
  'mid-download:1',
  'before-post:2',
  'after-download:2',
  'after-post:1',
  'mid-download:2',
  'after-poll:1',
];

// Why 90 s: eleven runs of the CLI, each a process of its own (and on PostgreSQL a connection), on a busy machine.
describe.each(STORES)('SIGKILL at any instant loses nothing and pays for nothing twice (%s)', { timeout: 90_000 }, (store) => {
  let project: Project;
  beforeAll(async () => {
    project = await openProject({ store });
    const client = createClient({ baseUrl: project.sandbox.url, apiId: 'e2e-api-id', apiKey: 'e2e-api-key-secret' });
    const link = await client.links.createWithParams({ title: 'Trail Runner', image_urls: ['https://example.com/tr.jpg'] });
    await client.close();
    project.write('crash.yaml', manifest(link.id));
  });
  afterAll(() => project.close());

  test('killed at every named point, then run again until done: every job done, zero duplicates, credits agree', async () => {
    const killed: string[] = [];
    for (const point of KILLS) {
      const run = await project.cli(['run', 'crash.yaml', '--time-scale', TIME_SCALE], { REELPIPE_TEST_KILL_AT: point });
      if (run.signal === 'SIGKILL') killed.push(point);
      else expect(run.exitCode, `${point}: ${run.stderr}`).toBe(0);
    }
    // The points before the end are all reached: the kills really happened mid-run.
    expect(killed.length, `killed at ${killed.join(', ')}`).toBeGreaterThanOrEqual(8);
    const last = await project.cli(['run', 'crash.yaml', '--time-scale', TIME_SCALE]);
    expect(last.exitCode, last.stderr).toBe(0);

    expect(await countStatuses(project)).toEqual({ downloaded: JOBS });
    const stats = project.sandbox.stats();
    expect(stats.duplicates.total).toBe(0);
    expect((stats.created.lipsync_v2 ?? 0) + (stats.created.ad_clone ?? 0)).toBe(JOBS);
    expect(await sumCredits(project)).toBe(stats.credits.charged - stats.credits.refunded);
    expect(await checkOutputs(project, join(project.dir, 'out'))).toEqual({ files: JOBS, mismatches: [] });
    // The crashes left evidence: a job created before the kill was found (matched), and an intent
    // killed before its POST was proven absent and sent once.
    const states = (await project.rows<{ state: string }>('SELECT DISTINCT state FROM attempts')).map((r) => r.state);
    expect(states).toEqual(expect.arrayContaining(['answered', 'matched', 'absent']));
  });
});
