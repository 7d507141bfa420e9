import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { STORES, TIME_SCALE, checkOutputs, countStatuses, openProject, sumCredits, type Project } from './harness.js';
import { makeLink, RECONCILABLE_JOBS, reconcilableManifest } from './reconcilable-fixture.js';

/** The batch of reconcilable kinds (reconcilable-fixture.ts): a kill between POST and commit must end in "found". */
const JOBS = RECONCILABLE_JOBS;

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
    project.write('crash.yaml', reconcilableManifest('crash', await makeLink(project)));
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
