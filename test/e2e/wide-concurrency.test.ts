import { afterEach, expect, test } from 'vitest';
import { openProject, type Project } from './harness.js';
import { scriptsCsv, shortsManifest } from './shorts-fixture.js';

/**
 * Concurrency beyond the old cap of 64 (a manifest takes up to 1,000): the run keeps that many
 * jobs alive at the service, never more, as the sandbox counts them.
 */

let project: Project | undefined;

afterEach(async () => {
  await project?.close();
  project = undefined;
});

test('concurrency 200: more than 64 jobs alive at the service at once, never more than 200, each made once', { timeout: 90_000 }, async () => {
  // A job lives about a second here: the run has to keep well over 64 in flight to fill 200 slots.
  project = await openProject({ capacity: 500, speed: 24 });
  project.write('scripts.csv', scriptsCsv(Array.from({ length: 600 }, (_, i) => `W-${i}`)));
  project.write('wide.yaml', shortsManifest('wide', { top: 'concurrency: 200' }));
  const run = await project.cli(['run', 'wide.yaml', '--time-scale', String(1 / 24), '--rate', '1000']);
  expect(run.exitCode, run.stderr).toBe(0);
  const stats = project.sandbox.stats();
  expect(stats.created.ai_short).toBe(600);
  expect(stats.duplicates.total).toBe(0);
  expect(stats.alive.peak).toBeGreaterThan(64);
  expect(stats.alive.peak).toBeLessThanOrEqual(200);
});
