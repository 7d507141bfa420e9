import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { LANGUAGES } from '../../src/api/schemas/index.js';
import { FAULT_PROFILES } from '../../src/sandbox/index.js';
import { TIME_SCALE, creditsInState, openProject, statusCounts, type Project } from './harness.js';

const LIPSYNCS = 125;
const CLONE_LANGUAGES = LANGUAGES.slice(0, 25);

const manifest = (linkId: string) => `
version: 1
name: hostile
outputs: out
concurrency: 24
steps:
  - id: talk
    kind: lipsync_v2
    for_each: { csv: lines.csv }
    with:
      video_inputs:
        - character: { type: avatar, avatar_id: 5eed0000-0000-4000-8000-000000000101 }
          voice: { type: text, input_text: "{{ row.text }}" }
  - id: clones
    kind: ad_clone
    estimate_credits: { low: 84, expected: 84, high: 168 }
    matrix: { language: [${CLONE_LANGUAGES.join(', ')}], aspect_ratio: [9x16, 16x9, 1x1] }
    name: "clone-{{ matrix.language }}-{{ matrix.aspect_ratio }}"
    with:
      link: ${linkId}
      video_url: https://example.com/ads/reference.mp4
      language: "{{ matrix.language }}"
      aspect_ratio: "{{ matrix.aspect_ratio }}"
`;

let project: Project;
beforeAll(async () => {
  // The hostile profile's every rate; its 429/503 answers say Retry-After 0 instead of 1 s, which
  // changes no outcome, only how long the client waits (real seconds, not divided by speed).
  project = await openProject({ faults: { ...FAULT_PROFILES.hostile, retryAfterSeconds: 0 }, seed: 11 });
  // The link is made on a quiet path: hostile faults hit it too, so retry until one exists.
  const client = createClient({ baseUrl: project.sandbox.url, apiId: 'e2e-api-id', apiKey: 'e2e-api-key-secret' });
  let linkId: string | undefined;
  for (let i = 0; i < 20 && !linkId; i++) {
    linkId = await client.links.createWithParams({ title: 'Trail Runner', image_urls: ['https://example.com/tr.jpg'] }).then((l) => l.id, () => undefined);
  }
  await client.close();
  const lines = Array.from({ length: LIPSYNCS }, (_, i) => `Line number ${i + 1}: the trail goes on.`);
  project.write('lines.csv', `text\n${lines.join('\n')}\n`);
  project.write('hostile.yaml', manifest(linkId!));
});
afterAll(() => project.close());

describe('under the hostile fault profile', () => {
  test('200 jobs finish after re-runs: each done or failed with the service reason, none lost, zero duplicates', async () => {
    const exits: number[] = [];
    for (let run = 0; run < 8; run++) {
      const result = await project.cli(['run', 'hostile.yaml', '--time-scale', TIME_SCALE, '--rate', '200']);
      exits.push(result.exitCode ?? -1);
      if (result.exitCode === 0 || result.exitCode === 1) break;
      expect(result.exitCode, result.stderr.slice(-2000)).toBe(4);
    }
    expect([0, 1]).toContain(exits.at(-1));
    const counts = statusCounts(project);
    // A job the service rejected (at its review) is its own state, not a failure.
    expect((counts.downloaded ?? 0) + (counts.failed ?? 0) + (counts.rejected ?? 0)).toBe(LIPSYNCS + CLONE_LANGUAGES.length * 3);
    const failed = project.query<{ failed_reason: string | null }>("SELECT failed_reason FROM jobs WHERE status IN ('failed', 'rejected')");
    expect(failed.every((f) => f.failed_reason && f.failed_reason.length > 0)).toBe(true);

    const stats = project.sandbox.stats();
    expect(stats.duplicates.total).toBe(0);
    expect(stats.faults.errorAfterCreate! + stats.faults.resetAfterCreate!).toBeGreaterThan(0);
    expect(creditsInState(project)).toBe(stats.credits.charged - stats.credits.refunded);
    // The in-doubt creations (500 or reset after create) were found, not sent again.
    const matched = project.query<{ n: number }>("SELECT count(*) AS n FROM attempts WHERE state = 'matched'")[0]?.n ?? 0;
    expect(matched).toBeGreaterThan(0);
  });
});
