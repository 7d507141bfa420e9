import { describe, expect, test } from 'vitest';
import { BoundedLines } from '../../src/util/bounded-lines.js';

function split(chunks: string[], max: number) {
  const lines: string[] = [];
  let overlong = 0;
  const splitter = new BoundedLines(max, (line) => lines.push(line), () => overlong++);
  for (const chunk of chunks) splitter.push(Buffer.from(chunk));
  splitter.end();
  return { lines, overlong };
}

describe('lines from chunks, bounded', () => {
  test('lines split across chunks come out whole; a last line without a newline too', () => {
    expect(split(['ab', 'c\nde', 'f\n\ng', 'h'], 10)).toEqual({ lines: ['abc', 'def', '', 'gh'], overlong: 0 });
  });

  test('a line past the bound is dropped and counted, however many chunks it spans; the next line is intact', () => {
    expect(split(['ok\n12345', '67890', 'abc\nnext\n'], 8)).toEqual({ lines: ['ok', 'next'], overlong: 1 });
    expect(split(['x'.repeat(20)], 8)).toEqual({ lines: [], overlong: 1 });
  });

  test('a line exactly at the bound is kept', () => {
    expect(split(['12345678\n'], 8)).toEqual({ lines: ['12345678'], overlong: 0 });
  });
});
