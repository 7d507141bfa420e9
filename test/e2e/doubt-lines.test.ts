import { afterEach, describe, expect, test } from 'vitest';
import { openProject, TIME_SCALE, type Project } from './harness.js';
import { scriptsCsv, shortsManifest } from './shorts-fixture.js';

let project: Project | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

/** The lines of a cron log (stderr, no terminal) that name job `label`. */
const linesNaming = (stderr: string, label: string) => stderr.split('\n').filter((line) => line.includes(` ${label} `));

describe('jobs in doubt in a cron log', () => {
  test('a job in doubt is one line; a later run that still holds the jobs says so in one line, not one per job', async () => {
    // Every creating answer lost after the job was made: AI Shorts cannot be searched, so each is held.
    project = await openProject({ faults: { rates: { resetAfterCreate: 1 } } });
    project.write('scripts.csv', scriptsCsv());
    project.write('m.yaml', shortsManifest('m'));

    const first = await project.cli(['run', 'm.yaml', '--time-scale', TIME_SCALE]);
    expect(first.exitCode, first.stderr).toBe(5);
    for (const label of ['short-TR-1', 'short-TR-2', 'short-TR-3']) {
      expect(linesNaming(first.stderr, label), first.stderr).toEqual([expect.stringMatching(/ IN DOUBT +short-TR-\d +shorts:\w{12} +aiShorts\.create: no answer after the request was sent/)]);
    }
    expect(first.stderr).not.toContain('still in doubt');

    const later = await project.cli(['run', 'm.yaml', '--time-scale', TIME_SCALE]);
    expect(later.exitCode, later.stderr).toBe(5);
    expect(later.stderr).not.toContain('IN DOUBT');
    const held = later.stderr.split('\n').filter((line) => line.includes('in doubt from earlier runs'));
    expect(held).toEqual([expect.stringMatching(/^\S+ {2}still in doubt from earlier runs: 3 jobs \(reelpipe doubt \S+m\.yaml lists them\)$/)]);
  });
});
