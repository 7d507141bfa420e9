import { writeFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { load, tempTree } from './helpers/temp-tree.js';
import { eachRow } from '../../src/manifest/read/rows.js';
import { loadManifest } from '../../src/manifest/index.js';
import type { InvalidInputError } from '../../src/errors.js';
import { formatIssue } from '../../src/errors.js';

/**
 * Text must be UTF-8: a Latin-1 `Caf\xe9` decoded leniently is sent as `Caf\uFFFD` and paid for.
 * Every file read — the manifest, a CSV, a JSONL — is decoded strictly, and a file in another
 * encoding is named with the line where it shows and the encoding found.
 */
const stopped = '… not fully checked yet: steps.0 (shorts); further checks run once these are fixed';
const rowsStep = (source: string) => `version: 1
name: t
steps:
  - id: shorts
    kind: ai_short
    for_each: { ${source} }
    with: { script: "{{ row.script }}", aspect_ratio: 9x16, style: Cinematic }
`;
const csv = rowsStep('csv: s.csv');
const latin1 = (text: string) => Buffer.from(text, 'latin1');
const utf16le = (text: string, bom: boolean) => Buffer.concat([Buffer.from(bom ? [0xff, 0xfe] : []), Buffer.from(text, 'utf16le')]);
const utf16be = (text: string) => Buffer.from(text, 'utf16le').swap16();

/** Problems of a tree whose files may be raw bytes. */
async function problemsOf(files: Record<string, string | Buffer>): Promise<string[]> {
  const { dir } = tempTree({});
  for (const [name, content] of Object.entries(files)) writeFileSync(`${dir}/${name}`, content);
  try {
    await loadManifest('manifest.yaml', { env: {}, cwd: dir });
  } catch (error) {
    return (error as InvalidInputError).issues.map(formatIssue);
  }
  throw new Error('expected the manifest to be rejected, but it loaded');
}

const SAVE = 'save it as UTF-8';
const LATIN1 = `not UTF-8: byte 0xE9 is not valid UTF-8; the file looks like Latin-1 or Windows-1252, which write é or ü as one such byte; ${SAVE}`;

describe('data files in another encoding are refused at the line where it shows', () => {
  test.each([
    ['a Latin-1 CSV', { 'manifest.yaml': csv, 's.csv': latin1('sku,script\nA1,Caf\xe9 au lait\n') }, [`s.csv:2:7  ${LATIN1}`, stopped]],
    ['a Latin-1 JSONL', { 'manifest.yaml': rowsStep('jsonl: s.jsonl'), 's.jsonl': latin1('{"script": "ok"}\n{"script": "Caf\xe9"}\n') }, [`s.jsonl:2:16  ${LATIN1}`, stopped]],
    ['a UTF-16 CSV with a byte order mark', { 'manifest.yaml': csv, 's.csv': utf16le('sku,script\nA1,hello\n', true) }, [`s.csv:1  the file is UTF-16LE (it starts with a UTF-16LE byte order mark); ${SAVE}`, stopped]],
    ['a UTF-16 CSV without one', { 'manifest.yaml': csv, 's.csv': utf16le('sku,script\nA1,hello\n', false) }, [`s.csv:1  the file looks like UTF-16LE without a byte order mark (every other byte is NUL); ${SAVE}`, stopped]],
    ['a big-endian UTF-16 CSV without one', { 'manifest.yaml': csv, 's.csv': utf16be('sku,script\nA1,hello\n') }, [`s.csv:1  the file looks like UTF-16BE without a byte order mark (every other byte is NUL); ${SAVE}`, stopped]],
    ['a UTF-32 CSV', { 'manifest.yaml': csv, 's.csv': Buffer.from([0xff, 0xfe, 0, 0, 0x61, 0, 0, 0]) }, [`s.csv:1  the file is UTF-32LE (it starts with a UTF-32LE byte order mark); ${SAVE}`, stopped]],
    ['a broken UTF-8 sequence', { 'manifest.yaml': csv, 's.csv': Buffer.concat([Buffer.from('sku,script\nA1,ab'), Buffer.from([0xe2, 0x82]), Buffer.from('\n')]) }, [`s.csv:2:6  not UTF-8: byte 0xE2 is not valid UTF-8; ${SAVE}`, stopped]],
    ['a NUL byte in a CSV', { 'manifest.yaml': csv, 's.csv': 'sku,script\nA1,he\0llo\n' }, ['s.csv:2:6  a NUL byte, which text never holds: is this a binary file?', stopped]],
  ])('%s', async (_, files, expected) => {
    expect(await problemsOf(files)).toEqual(expected);
  });

  test('a Latin-1 manifest is refused before its YAML is read', async () => {
    const yaml = latin1(rowsStep('rows: [{ script: "Caf\xe9" }]'));
    expect(await problemsOf({ 'manifest.yaml': yaml })).toEqual([`manifest.yaml:6:38  ${LATIN1}`]);
  });

  test('UTF-8 with a byte order mark, and accented letters in UTF-8, are read as they are', async () => {
    const manifest = await load({ 'manifest.yaml': `\uFEFF${csv}`, 's.csv': '\uFEFFsku,script\nA1,Café crème — 10 €\n' });
    expect([...eachRow(manifest.steps[0]!.rows!)]).toEqual([{ sku: 'A1', script: 'Café crème — 10 €' }]);
  });

  test('every problem names its file: a Latin-1 CSV next to a sound one', async () => {
    const yaml = `${csv}  - id: more\n    kind: ai_short\n    for_each: { csv: ok.csv }\n    with: { script: "{{ row.script }}", aspect_ratio: 9x16, style: Kawai }\n`;
    expect(await problemsOf({ 'manifest.yaml': yaml, 's.csv': latin1('script\n\xe9\n'), 'ok.csv': 'script\nhi\n' })).toEqual([
      'manifest.yaml:11:68  steps.1.with.style: "Kawai" is not accepted; did you mean Kawaii? (accepted: 4K realistic, 3D, Cinematic, Cartoonish, Line art, Pixel art, Mysterious, Steam punk, Collage, Kawaii)',
      `s.csv:2:1  ${LATIN1}`,
      stopped,
    ]);
  });
});
