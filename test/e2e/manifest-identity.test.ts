import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, test } from 'vitest';
import { CLI } from '../helpers/cli.js';
import { openProject, TIME_SCALE, type Project } from './harness.js';

const SHORT = `
version: 1
name: one
outputs: out
steps:
  - id: short
    kind: ai_short
    with: { script: "Every trail starts with one step.", aspect_ratio: 16x9, style: 4K realistic }
`;

let project: Project | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

/** A deployed release (a checkout) reached through a `current` symlink, as cron jobs do (`cd /srv/app/current`). */
function release(p: Project): void {
  mkdirSync(join(p.dir, 'release-1'));
  p.write('release-1/package.json', '{ "private": true }\n');
  p.write('release-1/m.yaml', SHORT);
  symlinkSync(join(p.dir, 'release-1'), join(p.dir, 'current'));
}

const created = (p: Project) => Object.values(p.sandbox.stats().created).reduce((a, b) => a + b, 0);

describe('a manifest is the file, not the path that reached it', () => {
  test('run again through a symlinked directory: nothing is submitted again', async () => {
    project = await openProject();
    release(project);
    const first = await project.cli(['run', 'release-1/m.yaml', '--time-scale', TIME_SCALE]);
    expect(first.exitCode, first.stderr).toBe(0);
    const before = created(project);
    expect(before).toBe(1);

    const again = await project.cli(['run', 'current/m.yaml', '--time-scale', TIME_SCALE]);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(created(project)).toBe(before);
    expect(project.sandbox.stats().duplicates.total).toBe(0);
    // One state, found from the manifest's real place whichever path reached it.
    expect(project.queryAt<{ manifest: string }>(join(project.dir, 'release-1', 'state', 'reelpipe.db'), 'SELECT DISTINCT manifest FROM jobs')).toHaveLength(1);
  });

  test('a run through the other path takes the same lock: exit 75 while the first runs', async () => {
    // A sandbox so slow the first run's job cannot finish: it holds the lock, tracking, until
    // told to stop, so the second run always meets it (never a race with the first finishing).
    project = await openProject({ speed: 0.0001 });
    release(project);
    const env = { ...process.env, REELPIPE_BASE_URL: project.sandbox.url, REELPIPE_API_ID: 'e2e-api-id', REELPIPE_API_KEY: 'e2e-api-key-secret' };
    const first = execa('node', [CLI, 'run', 'release-1/m.yaml', '--time-scale', '0.03'], { cwd: project.dir, env, reject: false });
    await new Promise<void>((resolve) => {
      first.stderr?.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('submitted')) resolve();
      });
    });
    const second = await project.cli(['run', 'current/m.yaml', '--time-scale', '0.03']);
    first.kill('SIGINT');
    await first;
    expect(second.exitCode, second.stderr).toBe(75);
    expect(second.stderr).toMatch(/another run \(pid \d+/);
  }, 60_000);
});
