import { describe, expect, test } from 'vitest';
import { ONE_LINE_MAX, oneLine, printable } from '../../src/util/one-line.js';

const NGINX_500 = `<html>
<head><title>500 Internal Server Error</title>
<style>body { color: red; }</style></head>
<body>
<center><h1>500 Internal Server Error</h1></center>
<!-- a comment
over lines -->
<script>alert("x")</script>
<hr><center>nginx &amp; friends</center>
</body>
</html>`;

describe('service text on one line', () => {
  test.each([
    ['an HTML error page keeps its words only', `HTTP 500: ${NGINX_500}`, 'HTTP 500: 500 Internal Server Error 500 Internal Server Error nginx & friends'],
    ['newlines and tabs become single spaces', 'line one\n\tline two\r\nline three', 'line one line two line three'],
    ['an escape sequence cannot reach the terminal', 'bad \x1b[2J\x1b[Hthing', 'bad [2J [Hthing'],
    ['comparisons are not taken for tags', 'must be < 5 and > 2', 'must be < 5 and > 2'],
    ['a plain reason is left as it is', 'Insufficient credits', 'Insufficient credits'],
  ])('%s', (_, text, expected) => {
    expect(oneLine(text)).toBe(expected);
  });

  test('a long text is cut to the bound with an ellipsis', () => {
    const cut = oneLine('word '.repeat(200));
    expect(cut.length).toBeLessThanOrEqual(ONE_LINE_MAX);
    expect(cut.endsWith('…')).toBe(true);
    expect(oneLine('abcdefghij', 5)).toBe('abcd…');
  });

  test('printable replaces every control character, C1 included, and keeps the rest', () => {
    expect(printable('a\u0007b\u009bc\u007fd é · █')).toBe('a b c d é · █');
  });
});
