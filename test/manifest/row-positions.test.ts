import { describe, expect, test } from 'vitest';
import { csvFieldPosition, jsonValueColumn, lineStarts } from '../../src/manifest/read/row-positions.js';
import { problems } from './helpers/temp-tree.js';

/** A bad value from a row file is reported at its cell: FILE:LINE:COL. */
const yaml = (source: string) => `version: 1
name: test
steps:
  - id: shorts
    kind: ai_short
    for_each: { ${source} }
    with: { script: "{{ row.script }}", aspect_ratio: "{{ row.ratio }}", style: Cinematic }
`;

describe('cells of a CSV', () => {
  const csv = 'sku,script,ratio\nA1,"Line one\nline ""two"", still",9:16\nB2,Fine,9x16\n';
  test.each([
    ['the first field', 3, 0, { line: 3, column: 1 }],
    ['a field after a quoted one', 4, 2, { line: 4, column: 9 }],
    ['a field after a quoted cell with a newline and escaped quotes', 2, 2, { line: 3, column: 22 }],
    ['a field past the end of the record', 4, 5, undefined],
  ])('%s', (_, line, field, expected) => {
    const text = csv + 'C3,Plain,1x1\n';
    expect(csvFieldPosition(text, lineStarts(text), line, field)).toEqual(expected);
  });

  test('a bad value after a multi-line quoted cell is reported at its own line and column', async () => {
    expect(await problems({ 'manifest.yaml': yaml('csv: s.csv'), 's.csv': csv })).toEqual([
      's.csv:3:22  steps.0.with.aspect_ratio: "9:16" is not accepted; did you mean 9x16? (accepted: 9x16, 16x9, 1x1)',
    ]);
  });

  test('a value inside text is reported at the cell it came from', async () => {
    const manifest = yaml('csv: s.csv').replace('"{{ row.script }}"', '"Buy {{ row.sku }} now"').replace('"{{ row.ratio }}"', '"{{ row.ratio }}"');
    expect(await problems({ 'manifest.yaml': manifest, 's.csv': 'sku,ratio\nA1,9x16\nB2,wide\n' })).toEqual([
      's.csv:3:4  steps.0.with.aspect_ratio: "wide" is not accepted (accepted: 9x16, 16x9, 1x1)',
    ]);
  });
});

describe('values of a JSON Lines file', () => {
  test.each([
    ['a top-level key', '{"script": "hi", "ratio": "9:16"}', 'ratio', 27],
    ['a key also nested deeper, and spaced out', '{"meta": {"ratio": 1}, "ratio"  :  "x"}', 'ratio', 36],
    ['a key in an escaped string', '{"note": "\\"ratio\\": no", "ratio": 1}', 'ratio', 36],
    ['a missing key', '{"script": "hi"}', 'ratio', undefined],
  ])('%s', (_, line, key, expected) => {
    expect(jsonValueColumn(line, key)).toBe(expected);
  });

  test('a bad value is reported at its line and column', async () => {
    const jsonl = '{"script": "hi", "ratio": "9x16"}\n\n{"script": "again", "ratio": "tall"}\n';
    expect(await problems({ 'manifest.yaml': yaml('jsonl: s.jsonl'), 's.jsonl': jsonl })).toEqual([
      's.jsonl:3:30  steps.0.with.aspect_ratio: "tall" is not accepted (accepted: 9x16, 16x9, 1x1)',
    ]);
  });
});
