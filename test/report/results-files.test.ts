import { parse } from 'csv-parse/sync';
import { describe, expect, test } from 'vitest';
import { resultsCsv } from '../../src/report/results-files.js';
import { resultsJson } from '../../src/report/results-json.js';
import type { ReportJob } from '../../src/report/report-data.js';
import { reportData, reportJob } from './fixtures/report-data.js';

/** results.csv maps each input row to what became of it, and reads back as it was written. */
const parsed = (csv: string) => parse(csv, { columns: true }) as Record<string, string>[];

describe('results.csv', () => {
  test('puts the row\'s own columns first, verbatim, then the job\'s', () => {
    const csv = resultsCsv(reportData([reportJob()]));
    expect(csv.split('\r\n')[0]).toBe(
      'origin,sku,script,step,label,state,key,remote_id,credits_estimated,credits_used,over_high_estimate,outputs,reason,failed_items,submitted_at,finished_at,downloaded_at',
    );
    expect(parsed(csv)).toEqual([{
      origin: 'scripts.csv:2', sku: 'A', script: 'Hello', step: 'shorts', label: 'short-A', state: 'done', key: 'shorts:000000000001',
      remote_id: 'r-1', credits_estimated: '5', credits_used: '5', over_high_estimate: '', outputs: 'shorts/short-A.mp4', reason: '', failed_items: '',
      submitted_at: '1970-01-01T00:00:01.000Z', finished_at: '1970-01-01T00:00:05.000Z', downloaded_at: '1970-01-01T00:00:06.000Z',
    }]);
  });

  test('round-trips quotes, commas, line breaks and edge spaces', () => {
    const row = { sku: 'A,1', script: 'She said "run",\nthen ran. ', note: ' lead' };
    const [back] = parsed(resultsCsv(reportData([reportJob({ row })])));
    expect([back?.sku, back?.script, back?.note]).toEqual([row.sku, row.script, row.note]);
  });

  test('a partly failed job stays one line, its failed items and their reasons in failed_items', () => {
    const items = [
      { item: 'red-tile', state: 'failed' as const, reason: 'The ad does not fit within 5 MB', refunded: 10, refundDerived: true, path: null },
      { item: 'blue', state: 'done' as const, reason: null, refunded: 0, refundDerived: false, path: 'ads/ad-blue.html' },
      { item: 'green', state: 'failed' as const, reason: '=too large', refunded: 10, refundDerived: true, path: null },
    ];
    const rows = parsed(resultsCsv(reportData([reportJob({ state: 'partly failed', items })])));
    expect(rows).toHaveLength(1);
    expect(rows[0]?.failed_items).toBe('red-tile: The ad does not fit within 5 MB; green: =too large');
    const json = JSON.parse(resultsJson(reportData([reportJob({ state: 'partly failed', items })]))) as { jobs: { items: unknown[] }[] };
    expect(json.jobs[0]?.items).toEqual(items.map(({ path, ...i }) => ({ ...i, output: path })));
  });

  test('leaves unknown credits empty, never 0', () => {
    const [back] = parsed(resultsCsv(reportData([reportJob({ estimate: null, used: null })])));
    expect([back?.credits_estimated, back?.credits_used]).toEqual(['', '']);
  });

  test('gives a column of ours that the input already names a prefix; the input keeps its own', () => {
    const [back] = parsed(resultsCsv(reportData([reportJob({ row: { state: 'CA', label: 'mine' } })])));
    expect(back).toMatchObject({ state: 'CA', label: 'mine', reelpipe_state: 'done', reelpipe_label: 'short-A' });
  });

  test('keeps jobs of different row sets and matrices apart, each with its own columns', () => {
    const csv = resultsCsv(reportData([
      reportJob(),
      reportJob({ key: 'clones:1', step: 'clones', label: 'clone-de', origin: null, row: null, matrix: { language: 'de' } }),
    ]));
    expect(parsed(csv).map((r) => [r.sku, r['matrix.language'], r.label])).toEqual([['A', '', 'short-A'], ['', 'de', 'clone-de']]);
  });

  test.each(['=HYPERLINK("http://x")', '+1', '-1', '@SUM(A1)'])('defuses the service\'s reason %s, which a spreadsheet would run', (reason) => {
    const [back] = parsed(resultsCsv(reportData([reportJob({ state: 'failed', reason })])));
    expect(back?.reason).toBe(`'${reason}`);
  });
});

describe('results.json', () => {
  test('holds each job typed: the row, the state in words and the database\'s, credits with null for unknown', () => {
    const json = JSON.parse(resultsJson(reportData([reportJob({ used: null })]))) as { run: Record<string, unknown>; jobs: Record<string, unknown>[] };
    expect(json.jobs[0]).toMatchObject({
      label: 'short-A', origin: 'scripts.csv:2', row: { sku: 'A', script: 'Hello' }, state: 'done', dbStatus: 'downloaded',
      credits: { estimated: 5, low: 5, high: 5, used: null, overHighEstimate: false }, outputs: ['shorts/short-A.mp4'],
    });
    expect(json.run).toMatchObject({ id: 3, outcome: 'OK' });
    expect(json.run).not.toHaveProperty('jobKeys');
  });

  test.each([0, 1, 3])('prints its head indented and each job compact on a line of its own, the whole one JSON text (%i jobs)', (n) => {
    const jobs = Array.from({ length: n }, (_, i) => reportJob({ key: `shorts:${i}`, label: `short-${i}`, reason: i === 1 ? 'line\nbreak "quoted"' : null }));
    const text = resultsJson(reportData(jobs));
    const { jobs: parsed, ...head } = JSON.parse(text) as { jobs: unknown[] };
    expect(parsed).toHaveLength(n);
    expect(text.startsWith(`${JSON.stringify(head, null, 2).slice(0, -2)},\n  "jobs": [`)).toBe(true);
    const lines = text.split('\n').filter((line) => line.startsWith('    {'));
    expect(lines.map((line) => JSON.parse(line.replace(/,$/, '')) as unknown)).toEqual(parsed);
    expect(text.endsWith(n === 0 ? '"jobs": []\n}\n' : '}\n  ]\n}\n')).toBe(true);
  });

  test('prints a job with items, history, hooks, attempts and nested row values on one line as JSON.stringify does, its fields in order', () => {
    const job = reportJob({
      row: { sku: 'A', nested: { list: [1, 'two', null, { deep: true }], empty: {}, none: [] }, emoji: '😀 "quoted" \\ \u2028', gone: undefined },
      matrix: { language: 'de' }, host: 'cron-1', reason: 'bad\tframe',
      items: [{ item: 'red-tile', state: 'failed', reason: 'too large', refunded: 10, refundDerived: true, path: null }],
      history: [{ key: 'shorts:old', used: null, outputs: [{ path: 'shorts/superseded/a.mp4', media: 'video', bytes: 1 }] }],
      hooks: [{ outputIdx: 0, state: 'failed', exitCode: 3, signal: null, timedOut: false, durationMs: 120, error: null } as unknown as ReportJob['hooks'][number]],
      attempts: [{ at: 500, runId: 1, remoteId: 'r-0', ended: 'failed', reason: 'x', credits: 0.1 + 0.2, retriedInRun: 2 }],
    });
    const data = reportData([job, reportJob({ key: 'shorts:2', estimate: null, used: null, outputs: [] })]);
    const text = resultsJson(data);
    const j = data.jobs[0]!;
    const expected = {
      label: j.label, key: j.key, step: j.step, kind: j.kind, origin: j.origin, row: j.row, matrix: j.matrix, state: j.state, dbStatus: j.status,
      remoteId: j.remoteId, host: j.host, credits: { estimated: 5, low: 5, high: 5, used: 5, overHighEstimate: false }, outputs: ['shorts/short-A.mp4'], reason: j.reason,
      items: [{ item: 'red-tile', state: 'failed', reason: 'too large', refunded: 10, refundDerived: true, output: null }],
      history: [{ key: 'shorts:old', creditsUsed: null, outputs: ['shorts/superseded/a.mp4'] }],
      hooks: [{ output: 0, state: 'failed', exitCode: 3, signal: null, timedOut: false, durationMs: 120, error: null }],
      attempts: [{ at: '1970-01-01T00:00:00.500Z', runId: 1, remoteId: 'r-0', ended: 'failed', reason: 'x', credits: 0.1 + 0.2, retriedInRun: 2 }],
      submittedAt: '1970-01-01T00:00:01.000Z', finishedAt: '1970-01-01T00:00:05.000Z', downloadedAt: '1970-01-01T00:00:06.000Z',
    };
    expect(text).toContain(`\n    ${JSON.stringify(expected)},\n`);
  });
});
