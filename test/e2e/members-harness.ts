import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { CLI } from '../helpers/cli.js';
import type { Project } from './harness.js';

/**
 * Several hosts of one run, as the tests make them: hosts are processes, each with its own
 * REELPIPE_HOST and checkout of one manifest, its outputs in one shared folder. A slow sandbox
 * (speed 100) keeps a run going long enough to kill, pause or cut off a member in the middle.
 */
export const SPEED = 100;

export const sharedManifest = (outputs: string, jobs: number): string => `
version: 1
name: shared
outputs: ${outputs}
concurrency: 6
steps:
  - id: shorts
    kind: ai_short
    matrix: { n: [${Array.from({ length: jobs }, (_, i) => i + 1).join(', ')}] }
    name: "short-{{ matrix.n }}"
    with: { script: "Share the work, take {{ matrix.n }}.", style: 3D, aspect_ratio: 9x16 }
`;

/** Three checkouts of one manifest (as on three hosts), its outputs in one shared folder. */
export function checkouts(p: Project, jobs: number): { dirs: string[]; shared: string } {
  const shared = join(p.dir, 'shared-outputs');
  const dirs = ['a', 'b', 'c'].map((name) => {
    const dir = join(p.dir, `checkout-${name}`);
    mkdirSync(dir, { recursive: true });
    p.write(`checkout-${name}/shared.yaml`, sharedManifest(shared, jobs));
    return dir;
  });
  return { dirs, shared };
}

/** A member: `reelpipe run` from `dir`, as host `host`, with a lease of 2 s (and `flags`). */
export const member = (p: Project, dir: string, host: string, env: Record<string, string> = {}, flags: string[] = []): ResultPromise =>
  execa('node', [CLI, 'run', 'shared.yaml', '--time-scale', String(1 / SPEED), '--lease', '2s', ...flags], {
    cwd: dir, env: { ...p.env, REELPIPE_HOST: host, ...env }, reject: false, all: true,
  }) as unknown as ResultPromise;
