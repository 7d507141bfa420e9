import { afterEach, describe, expect, test } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { openProject, TIME_SCALE, verifyOutputs, type Project } from './harness.js';
import { join } from 'node:path';

let project: Project | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

describe('links re-signed while a job\'s files are fetched', () => {
  test('a job with several files is downloaded only with every file recorded: refreshing one link never forgets another file', async () => {
    // Half of the links a read hands out are already expired: fetching one file of a job re-reads
    // the job, which signs every link again (the chaos soak's finding 1).
    project = await openProject({ faults: { rates: { urlExpired: 0.5 }, retryAfterSeconds: 0 }, seed: 3 });
    const client = createClient({ baseUrl: project.sandbox.url, apiId: 'e2e-api-id', apiKey: 'e2e-api-key-secret' });
    const link = await client.links.createWithParams({ title: 'Trail Runner 2', image_urls: ['https://example.com/a.jpg'] });
    await client.close();
    project.write('ads.yaml', `
version: 1
name: ads
outputs: out
steps:
  - id: playables
    kind: html_ads
    matrix: { offer: [one, two, three, four, five, six] }
    with: { link: ${link.id}, style_ids: [quiz-3q, carousel], promotion_info: "Offer {{ matrix.offer }}" }
`);
    for (let run = 0; run < 4; run++) {
      const result = await project.cli(['run', 'ads.yaml', '--time-scale', TIME_SCALE]);
      if (result.exitCode === 0) break;
      expect(result.exitCode, result.stderr).toBe(4);
    }
    const unrecorded = project.query<{ key: string; idx: number }>(
      "SELECT j.key, o.idx FROM jobs j JOIN outputs o ON o.job_key = j.key WHERE j.status = 'downloaded' AND (o.path IS NULL OR o.sha256 IS NULL)",
    );
    expect(unrecorded).toEqual([]);
    expect(project.query<{ n: number }>("SELECT count(*) AS n FROM jobs WHERE status = 'downloaded'")[0]?.n).toBe(6);
    expect(verifyOutputs(project, join(project.dir, 'out'))).toEqual({ files: 12, mismatches: [] });
  });
});
