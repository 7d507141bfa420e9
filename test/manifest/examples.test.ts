import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { loadManifest, manifestJsonSchema } from '../../src/manifest/index.js';
import { planWithState } from '../../src/run/plan-with-state.js';
import { STEP_KINDS } from '../../src/step-kinds.js';
import { REPO_ROOT } from '../helpers/cli.js';

/** The shipped manifests stay valid, together cover every kind, and the schema cannot drift. */
const manifests = ['examples', 'pipelines'].flatMap((dir) =>
  readdirSync(path.join(REPO_ROOT, dir))
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => path.join(dir, f)),
);

describe('shipped manifests', () => {
  // On the embedded sandbox, as examples/ are made to run: its catalogue is the live one (style_ids: all).
  test.each(manifests)('%s loads and plans', async (file) => {
    const plan = await planWithState(await loadManifest(file, { env: {}, cwd: REPO_ROOT }), { sandbox: true, embedded: true, statePath: path.join(REPO_ROOT, 'no-such', 'state.db'), service: undefined });
    expect(plan.totals.jobs).toBeGreaterThan(0);
  });

  test('examples/ shows every step kind', async () => {
    const kinds = new Set<string>();
    for (const file of manifests.filter((f) => f.startsWith('examples'))) {
      for (const step of (await loadManifest(file, { env: {}, cwd: REPO_ROOT })).steps) kinds.add(step.kind);
    }
    expect([...kinds].sort()).toEqual([...STEP_KINDS].sort());
  });
});

describe('the JSON Schema', () => {
  test('docs/manifest.schema.json is what `reelpipe schema` prints (regenerate it with that command)', () => {
    const snapshot: unknown = JSON.parse(readFileSync(path.join(REPO_ROOT, 'docs/manifest.schema.json'), 'utf8'));
    expect(manifestJsonSchema()).toEqual(snapshot);
  });
});
