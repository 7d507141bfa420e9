import { describe, expect, test } from 'vitest';
import { planManifest } from '../../src/plan/index.js';
import { keyColumn } from '../../src/plan/job-labels.js';
import { load, manifestWith } from '../manifest/helpers/temp-tree.js';

/** Every job gets a readable label, derived from the plan alone and unique within its manifest. */
const short = { kind: 'ai_short', with: { script: '{{ row.script }}', style: '3D', aspect_ratio: '9x16' } };
const labelsOf = async (steps: object[], files: Record<string, string> = {}) =>
  planManifest(await load({ 'manifest.yaml': manifestWith(steps), ...files })).jobs.map((j) => j.label);

describe('a job label', () => {
  test.each([
    ['the step\'s name: template, rendered', [{ ...short, id: 'shorts', name: 'short-{{ row.sku }}', for_each: { csv: 'scripts.csv' } }], ['short-ALP-GRE-24', 'short-BOR-RED-02']],
    ['the row\'s origin and its key column (a key-like name first)', [{ ...short, id: 'shorts', for_each: { csv: 'scripts.csv' } }], ['shorts · scripts.csv:2 · ALP-GRE-24', 'shorts · scripts.csv:3 · BOR-RED-02']],
    ['the matrix values', [{ id: 'clips', kind: 'boreal', matrix: { resolution: ['720p', '1080p'] }, with: { prompt: 'waves', resolution: '{{ matrix.resolution }}', duration: 10 } }], ['clips · 720p', 'clips · 1080p']],
    ['the step id, for a step of one job', [{ id: 'teaser', kind: 'boreal', with: { prompt: 'waves', resolution: '720p', duration: 10 } }], ['teaser']],
  ])('is %s', async (_, steps, labels) => {
    expect(await labelsOf(steps, { 'scripts.csv': 'script,sku\nHello there,ALP-GRE-24\nSecond one,BOR-RED-02\n' })).toEqual(labels);
  });

  test('of a for_each: { step } job names its upstream job', async () => {
    const product = { id: 'product', kind: 'link_with_params', for_each: { rows: [{ t: 'Shoe' }, { t: 'Sock' }] }, with: { title: '{{ row.t }}', image_urls: ['https://example.com/i.png'] } };
    const clone = { id: 'clone', kind: 'ad_clone', for_each: { step: 'product' }, estimate_credits: { low: 1, expected: 1, high: 1 }, with: { link: '{{ item.id }}', video_url: 'https://example.com/ad.mp4' } };
    const labels = await labelsOf([product, clone]);
    expect(labels.slice(2)).toEqual([`clone · ${labels[0]}`, `clone · ${labels[1]}`]);
    expect(labels[0]).toMatch(/^product · manifest\.yaml:\d+ · Shoe$/);
  });

  test('that two jobs would share gets (2), (3) in plan order', async () => {
    const steps = [{ ...short, id: 'shorts', name: 'same', for_each: { rows: [{ script: 'One.' }, { script: 'Two.' }, { script: 'Three.' }] } }];
    expect(await labelsOf(steps)).toEqual(['same', 'same (2)', 'same (3)']);
  });

  test('never repeats even when a suffixed label is also a real one', async () => {
    const steps = [{ ...short, id: 'shorts', name: '{{ row.n }}', for_each: { rows: [{ n: 'a', script: 'One.' }, { n: 'a', script: 'Two.' }, { n: 'a (2)', script: 'Three.' }] } }];
    const labels = await labelsOf(steps);
    expect(new Set(labels).size).toBe(3);
  });
});

describe('the key column of a row set', () => {
  test.each([
    ['a key-like name, wherever it stands', [{ script: 'a', sku: 'X' }, { script: 'b', sku: 'Y' }], ['script', 'sku'], 'sku'],
    ['else the first column whose values tell the rows apart', [{ lang: 'de', city: 'Bern' }, { lang: 'de', city: 'Oslo' }], ['lang', 'city'], 'city'],
    ['none when every column repeats or is prose', [{ a: 'x', b: 'y'.repeat(50) }, { a: 'x', b: 'z'.repeat(50) }], ['a', 'b'], undefined],
    ['none for a key-like column with an empty value', [{ id: '' }, { id: '2' }], ['id'], undefined],
  ])('is %s', (_, rows, columns, expected) => {
    const set = { source: 'rows' as const, file: 'm.yaml', columns, count: rows.length, row: (i: number) => rows[i] as Record<string, unknown>, line: () => 0, text: true };
    expect(keyColumn(set)).toBe(expected);
  });
});
