import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { countsText, stateWord, STATE_WORDS, VOCABULARY } from '../../src/state/vocabulary.js';
import { JOB_STATUSES } from '../../src/state/index.js';
import { REPO_ROOT } from '../helpers/cli.js';

/** One vocabulary: each database status has one word, and docs/report.md states exactly these. */
describe('the words for a job state', () => {
  test.each([
    [null, false, 'not submitted'],
    [null, true, 'changed'],
    ['planned', false, 'not submitted'],
    ['submitting', false, 'submitting'],
    ['in_doubt', false, 'in doubt'],
    ['submitted', false, 'submitted'],
    ['running', false, 'running'],
    ['done', false, 'finished'],
    ['downloaded', false, 'done'],
    ['failed', false, 'failed'],
    ['rejected', false, 'rejected'],
  ] as const)('database status %s (changed: %s) reads "%s"', (status, changed, word) => {
    expect(stateWord(status, changed)).toBe(word);
  });

  test('every database status is listed under the one word it reads as', () => {
    for (const status of JOB_STATUSES) {
      expect(STATE_WORDS.filter((w) => VOCABULARY[w].statuses.includes(status))).toEqual([stateWord(status)]);
    }
  });

  test('counts read in the vocabulary\'s order, zeros left out', () => {
    expect(countsText({ failed: 1, done: 3, 'not submitted': 0, running: 2 })).toBe('2 running, 3 done, 1 failed');
  });

  test('docs/report.md lists exactly these words, statuses, meanings and next steps', () => {
    const doc = readFileSync(join(REPO_ROOT, 'docs/report.md'), 'utf8');
    const table = doc.slice(doc.indexOf('| state | database status |')).split('\n\n')[0]?.split('\n').slice(2) ?? [];
    const rows = table.map((line) => line.split(' | ').map((cell) => cell.replace(/^\| |\s*\|$/g, '').replaceAll('`', '')));
    expect(rows).toEqual(
      STATE_WORDS.map((w) => [w, VOCABULARY[w].statuses.map((s) => (s === 'none' ? '(none)' : s)).join(', '), VOCABULARY[w].meaning, VOCABULARY[w].next]),
    );
  });
});
