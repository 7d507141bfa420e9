import { describe, expect, test } from 'vitest';
import { planManifest } from '../../src/plan/index.js';
import { load, manifestWith } from '../manifest/helpers/temp-tree.js';

/** Job identity: from the step and what the job sends, never from where its row sits. */
const shorts = (extra: object = {}) => ({
  id: 'shorts',
  kind: 'ai_short',
  for_each: { csv: 'rows.csv' },
  name: '{{ row.sku }}',
  with: { script: '{{ row.script }}', aspect_ratio: '9x16', style: 'Cinematic' },
  ...extra,
});

const keysBySku = async (csv: string, step: object = shorts()) => {
  const plan = planManifest(await load({ 'manifest.yaml': manifestWith([step]), 'rows.csv': csv }));
  return Object.fromEntries(plan.jobs.map((j) => [j.outputName, j.key]));
};

describe('job keys', () => {
  const csv = 'sku,script\nA,First script\nB,Second script\nC,Third script\n';

  test('are the step id and 12 hex digits of a hash', async () => {
    expect(Object.values(await keysBySku(csv))).toEqual(expect.arrayContaining([expect.stringMatching(/^shorts:[0-9a-f]{12}$/)]));
  });

  test('are the keys state databases already hold: the same inputs give the same key in every version', async () => {
    // Pinned: a key that changed between versions would make every recorded job look new, and be paid for again.
    expect(await keysBySku(csv)).toEqual({ A: 'shorts:6ed6fa66d5ac', B: 'shorts:b0a096c63049', C: expect.stringMatching(/^shorts:/) });
  });

  test('do not change when the CSV is reordered', async () => {
    const reordered = 'sku,script\nC,Third script\nA,First script\nB,Second script\n';
    expect(await keysBySku(reordered)).toEqual(await keysBySku(csv));
  });

  test('do not change for the other rows when a row is inserted', async () => {
    const inserted = 'sku,script\nA,First script\nNEW,A new script\nB,Second script\nC,Third script\n';
    const before = await keysBySku(csv);
    const after = await keysBySku(inserted);
    expect(after).toMatchObject(before);
    expect(Object.keys(after)).toHaveLength(4);
  });

  test('change when what the job sends changes', async () => {
    const edited = 'sku,script\nA,First script\nB,Second script edited\nC,Third script\n';
    const [before, after] = [await keysBySku(csv), await keysBySku(edited)];
    expect(after.A).toBe(before.A);
    expect(after.B).not.toBe(before.B);
  });

  test('do not depend on the output name or the download flag', async () => {
    const renamed = await keysBySku(csv, shorts({ name: 'clip-{{ row.sku }}', download: false }));
    expect(Object.values(renamed).sort()).toEqual(Object.values(await keysBySku(csv)).sort());
  });

  test('do not depend on key order in the manifest', async () => {
    const reversed = shorts({ with: { style: 'Cinematic', aspect_ratio: '9x16', script: '{{ row.script }}' } });
    expect(await keysBySku(csv, reversed)).toEqual(await keysBySku(csv));
  });
});

describe('identical jobs', () => {
  test('are all kept, with distinct keys, and reported', async () => {
    const step = shorts({ name: undefined });
    const plan = planManifest(await load({ 'manifest.yaml': manifestWith([step]), 'rows.csv': 'sku,script\nA,Same\nB,Same\nC,Other\n' }));
    const [first, second] = plan.jobs.map((j) => j.key);
    expect(second).toBe(`${first}~2`);
    expect(plan.jobs).toHaveLength(3);
    expect(plan.duplicates).toEqual([{ key: first, step: 'shorts', count: 2 }]);
    expect(plan.warnings).toContain(`2 identical jobs in step shorts (${first}): each is made; keys ${first}, ${first}~2, …`);
  });
});

describe('output names', () => {
  test('come from name:, made safe for any file system', async () => {
    const names = await keysBySku('sku,script\n"Été / Sale?",x\n');
    expect(Object.keys(names)).toEqual(['Ete-Sale']);
  });

  test('default to the job key, so they never depend on row order', async () => {
    const plan = planManifest(await load({ 'manifest.yaml': manifestWith([shorts({ name: undefined })]), 'rows.csv': 'sku,script\nA,x\n' }));
    const [job] = plan.jobs;
    expect(job?.outputName).toBe(job?.key.replace(':', '-'));
  });

  test('that two jobs share get their keys appended, with a warning', async () => {
    const plan = planManifest(
      await load({ 'manifest.yaml': manifestWith([shorts({ name: 'same' })]), 'rows.csv': 'sku,script\nA,x\nB,y\n' }),
    );
    expect(plan.jobs.map((j) => j.outputName)).toEqual(plan.jobs.map((j) => `same-${j.key.split(':')[1]}`));
    expect(plan.warnings).toContain('2 jobs would write same: each gets its key appended (make name: unique per job)');
  });
});
