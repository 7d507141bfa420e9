import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { readDecisionFile } from '../../src/run/reconcile/decision-file.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'reelpipe-decisions-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const read = (text: string) => {
  writeFileSync(join(dir, 'd.csv'), text);
  return readDecisionFile(join(dir, 'd.csv'), 'd.csv');
};

describe('a resolve --from file', () => {
  test('one decision a line, by its line number: blank lines and # comments skipped, a label with a comma quoted, spaces trimmed', () => {
    const { lines, issues } = read('# found on Monday\n\nshort-TR-1, 7d1165c4-aaaa\n   \n  # indented\n"teaser, cut 2",ABSENT\nclones:2b75e8f2bb07,absent\n');
    expect(issues).toEqual([]);
    expect(lines).toEqual([
      { line: 3, name: 'short-TR-1', decision: { adopt: '7d1165c4-aaaa' } },
      { line: 6, name: 'teaser, cut 2', decision: { absent: true } },
      { line: 7, name: 'clones:2b75e8f2bb07', decision: { absent: true } },
    ]);
  });

  test.each([
    ['one field', 'short-TR-1\n', 1, 'got "short-TR-1"'],
    ['three fields', 'short-TR-1,absent,now\n', 1, 'got "short-TR-1,absent,now"'],
    ['no decision', 'ok,absent\nshort-TR-1,\n', 2, 'got "short-TR-1,"'],
  ])('a line with %s is a problem at its line, saying what is accepted', (_, text, line, got) => {
    const { issues } = read(text);
    expect(issues).toEqual([{ file: 'd.csv', line, message: `expected \`JOB,REMOTE_ID\` (it exists: adopt it) or \`JOB,absent\` (nothing was created), JOB being its key or label; ${got}` }]);
  });

  test('a quote never closed is a CSV problem at its line', () => {
    const { lines, issues } = read('short-TR-1,absent\n"short-TR-2,absent\n');
    expect(lines).toEqual([]);
    expect(issues).toEqual([{ file: 'd.csv', line: 2, message: expect.stringMatching(/^CSV: Quote Not Closed.*; each line is `JOB,REMOTE_ID`/) }]);
  });

  test('a file that is not there is a problem naming it', () => {
    expect(readDecisionFile(join(dir, 'none.csv'), 'none.csv').issues).toEqual([{ file: 'none.csv', message: expect.stringMatching(/^cannot be read: ENOENT/) }]);
  });
});
