import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { MAX_LOG_LINE_BYTES, prettyLogLine, readLogLines, type LogFilter } from '../../src/report/read-log.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'reelpipe-readlog-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const AT = Date.UTC(2026, 10, 23, 2, 43, 59, 123);
const LINES = [
  { level: 30, time: AT, runId: 3, msg: 'run started' },
  { level: 20, time: AT, runId: 3, key: 'shorts:1', label: 'short-TR1', method: 'POST', path: '/api/ai_shorts/', status: 201, durationMs: 4, msg: 'request' },
  { level: 30, time: AT, runId: 3, key: 'shorts:1', label: 'short-TR1', dbStatus: 'submitted', msg: 'submitted' },
  { level: 40, time: AT, runId: 3, key: 'clones:1', label: 'clone-de', dbStatus: 'failed', msg: 'failed' },
].map((l) => JSON.stringify(l));

async function read(content: string, filter: LogFilter) {
  const file = join(dir, 'run.ndjson');
  writeFileSync(file, content);
  const lines: string[] = [];
  const counts = await readLogLines(file, filter, (line) => lines.push(line));
  return { lines, ...counts };
}

describe('reading a run log back', () => {
  test.each([
    ['everything', {}, [0, 1, 2, 3]],
    ['a job by its label', { job: 'short-TR1' }, [1, 2]],
    ['a job by its key', { job: 'clones:1' }, [3]],
    ['info and above', { minLevel: 30 }, [0, 2, 3]],
    ['a job, warnings only', { job: 'short-TR1', minLevel: 40 }, []],
  ])('%s', async (_, filter, expected) => {
    const result = await read(`${LINES.join('\n')}\n`, filter);
    expect(result).toEqual({ lines: expected.map((i) => LINES[i]), shown: expected.length, skipped: 0 });
  });

  test('a line too long to hold, or not JSON, is skipped and counted; the lines around it are read', async () => {
    const huge = JSON.stringify({ level: 30, msg: 'x'.repeat(MAX_LOG_LINE_BYTES) });
    const result = await read([LINES[0], huge, 'not json', LINES[3]].join('\n'), {});
    expect(result).toEqual({ lines: [LINES[0], LINES[3]], shown: 2, skipped: 2 });
  });

  test('people read the time with its zone, the level, the job by label and key, then the message and the rest', () => {
    const pretty = prettyLogLine();
    const line = pretty(LINES[1]!);
    expect(line.endsWith('\n')).toBe(true);
    expect(line.trimEnd()).toMatch(
      /^\d{4}-11-2\dT\d\d:\d\d:59\.123(Z|[+-]\d\d:\d\d) DEBUG: short-TR1 \(shorts:1\) {2}request \{"method":"POST","path":"\/api\/ai_shorts\/","status":201,"durationMs":4\}$/,
    );
    expect(pretty(LINES[0]!).trimEnd()).toMatch(/ INFO: run started$/);
    // One line per entry, a failed request's error text included.
    const failed = pretty(JSON.stringify({ level: 20, time: AT, msg: 'request', status: 500, error: 'HTTP 500: <html>\n<body>x</body>' }));
    expect(failed.trimEnd().split('\n')).toHaveLength(1);
    expect(failed).toContain('"error":"HTTP 500: <html>\\n<body>x</body>"');
  });
});
