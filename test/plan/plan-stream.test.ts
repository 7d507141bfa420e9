import { parse } from 'csv-parse/sync';
import { describe, expect, test } from 'vitest';
import { eachRow, splitRecord } from '../../src/manifest/read/rows.js';
import { planManifest, planStream } from '../../src/plan/index.js';
import { load, manifestWith } from '../manifest/helpers/temp-tree.js';

const short = { kind: 'ai_short', with: { script: '{{ row.script }}', style: '3D', aspect_ratio: '9x16' } };

describe('the plan as a stream', () => {
  const files = {
    'manifest.yaml': manifestWith([
      { ...short, id: 'shorts', name: '{{ row.sku }}', for_each: { csv: 'rows.csv' } },
      { id: 'product', kind: 'link_with_params', for_each: { rows: [{ t: 'Shoe' }, { t: 'Sock' }] }, with: { title: '{{ row.t }}', image_urls: ['https://example.com/i.png'] } },
      { id: 'clone', kind: 'ad_clone', for_each: { step: 'product' }, estimate_credits: { low: 1, expected: 1, high: 1 }, with: { link: '{{ item.id }}', video_url: 'https://example.com/ad.mp4' } },
    ]),
    // Two rows of one script (a duplicate key, ~2) under one name (a shared output name).
    'rows.csv': 'sku,script\nA,One.\nB,Two.\nA,One.\n',
  };

  test('gives the same jobs at every pass, and its index holds each one\'s key, output name and step in plan order', async () => {
    const stream = planStream(await load(files));
    const first = [...stream.jobs];
    expect([...stream.jobs]).toEqual(first);
    expect(first.map((j) => j.key)).toEqual([...stream.index.eachKey()]);
    expect(first.map((_, i) => [stream.index.outputName(i), stream.index.step(i)])).toEqual(first.map((j) => [j.outputName, j.step]));
    expect(first.map((j) => stream.index.ordinal(j.key))).toEqual(first.map((_, i) => i));
    expect(stream.index.ordinal('shorts:000000000000')).toBeUndefined();
  });

  test('decides over the whole plan what one job cannot tell: duplicates, shared names, repeated labels', async () => {
    const stream = planStream(await load(files));
    const shorts = [...stream.jobs].filter((j) => j.step === 'shorts');
    expect(shorts[2]?.key).toBe(`${shorts[0]?.key}~2`);
    expect(shorts.map((j) => j.outputName)).toEqual([`A-${shorts[0]!.key.slice(7)}`, 'B', `A-${shorts[0]!.key.slice(7)}-2`]);
    expect(shorts.map((j) => j.label)).toEqual(['A', 'B', 'A (2)']);
    expect(stream.duplicates).toEqual([{ key: shorts[0]!.key, step: 'shorts', count: 2 }]);
    expect(stream.warnings).toContain('2 jobs would write A: each gets its key appended (make name: unique per job)');
  });

  test('as a list is the stream\'s jobs with the same head', async () => {
    const manifest = await load(files);
    const { jobs, index: _index, ...head } = planStream(manifest);
    expect(planManifest(manifest)).toEqual({ ...head, jobs: [...jobs] });
  });

  test('names each for_each: { step } job\'s upstream job by the key it was given', async () => {
    const jobs = [...planStream(await load(files)).jobs];
    const products = jobs.filter((j) => j.step === 'product');
    expect(jobs.filter((j) => j.step === 'clone').map((j) => j.refs[0]?.jobKey)).toEqual(products.map((p) => p.key));
  });
});

describe('rows read again from their file', () => {
  test.each([
    ['quotes, commas and newlines inside values, doubled quotes, blank lines and a BOM', '\uFEFFsku,script\n"A-1","Hello, world"\n\nB-2,"two\nlines"\nC-3,"say ""hi"""\nD-4,plain\n'],
    ['CRLF line endings and no newline at the end', 'sku,script\r\nA,"x, y"\r\nB,z\r\nC,"multi\r\nline"'],
    ['lines ending in a lone CR', 'sku,script\rA,one\rB,"two, three"\r'],
    ['empty values', 'sku,script,extra\nA,s,\n,t,\n'],
  ])('are the rows a whole parse of the file gives: %s', async (_name, csv) => {
    const manifest = await load({ 'manifest.yaml': manifestWith([{ ...short, id: 'shorts', for_each: { csv: 'rows.csv' } }]), 'rows.csv': csv });
    const [header, ...records] = parse(csv, { bom: true, skip_empty_lines: true }) as string[][];
    const whole = records.map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i]])));
    expect([...eachRow(manifest.steps[0]!.rows!)]).toEqual(whole);
  });

  test('of a JSONL file are its objects, with their lines', async () => {
    const jsonl = '{"script":"One."}\n\n{"script":"Two, \\"quoted\\"."}\r\n{"script":"Three.","n":3}';
    const manifest = await load({ 'manifest.yaml': manifestWith([{ ...short, id: 'shorts', for_each: { jsonl: 'rows.jsonl' } }]), 'rows.jsonl': jsonl });
    const rows = manifest.steps[0]!.rows!;
    expect([...eachRow(rows)]).toEqual([{ script: 'One.' }, { script: 'Two, "quoted".' }, { script: 'Three.', n: 3 }]);
    expect([0, 1, 2].map((i) => rows.line(i))).toEqual([1, 3, 4]);
  });

  test('one record at a time, as csv-parse reads it', () => {
    const records = ['a,b,c', '"a",b,"c"', '"a,b","",""', ',,', '"say ""hi""",x', '"two\nlines",y', 'x,""', '""', 'plain', '"",""', '"a""",b'];
    for (const record of records) expect(splitRecord(record)).toEqual((parse(record) as string[][])[0]);
  });
});
