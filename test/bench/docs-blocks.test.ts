import { describe, expect, test } from 'vitest';
import { renderMachine, renderResults, renderTargets, replaceBlock } from '../../bench/lib/docs-blocks.js';

const results = {
  name: 'rerun-10k',
  at: '2026-11-23T08:00:00.000Z',
  machine: { commit: 'abc1234', cores: 2, loadAverage: [1.5, 2, 2.5] },
  sections: [{ title: 'a table', table: '| a |\n| --- |\n| 1 |' }],
  targets: [{ name: 're-run wall time', goal: '≤ 1.50 s', measured: '1.72 / 1.75 s', met: false }],
};

describe('the documented blocks', () => {
  const doc = 'intro\n<!-- bench:rerun-10k -->\nold figures\n<!-- /bench:rerun-10k -->\nhand-written notes\n';

  test('a block is refilled between its markers; the hand-written text around it stays', () => {
    expect(replaceBlock(doc, 'rerun-10k', 'new figures')).toBe('intro\n<!-- bench:rerun-10k -->\nnew figures\n<!-- /bench:rerun-10k -->\nhand-written notes\n');
  });

  test.each([['scale'], ['rerun']])('a benchmark with no markers of its own (%s) is not written anywhere', (name) => {
    expect(replaceBlock(doc, name, 'x')).toBeUndefined();
  });

  test('a results block says when, which commit, which machine, then each titled table', () => {
    expect(renderResults(results)).toBe(
      '_2026-11-23, commit abc1234, 2 cores, load 1.5 2 2.5 at the start; `bench/results/rerun-10k.json`._\n\n**a table**\n\n| a |\n| --- |\n| 1 |',
    );
  });

  test('every target of every benchmark lands in one table with its verdict', () => {
    const table = renderTargets([results, { ...results, name: 'scale', targets: [{ name: 'memory', goal: 'flat', measured: '1 → 2', met: undefined }] }]);
    expect(table.split('\n').slice(2)).toEqual([
      '| rerun-10k | re-run wall time | ≤ 1.50 s | 1.72 / 1.75 s           | NOT MET          |',
      '| scale     | memory           | flat     | 1 → 2                   | not measured     |',
    ]);
  });
});

test('the machine block names cores, CPU, memory, system, Node and how CPU and memory were taken', () => {
  const table = renderMachine({ cores: 2, cpu: 'AMD EPYC', memoryGb: 23.5, platform: 'Linux 6.1 x64', node: 'v20.20.2', measuredBy: 'GNU time -v' });
  for (const cell of ['| 2 ', 'AMD EPYC', '23.5 GB', 'Linux 6.1 x64', 'v20.20.2', 'GNU time -v']) expect(table).toContain(cell);
});
