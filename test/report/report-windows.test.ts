import { readdirSync, readFileSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, test } from 'vitest';
import { renderReport } from '../../src/report/html/render-report.js';
import type { ReportJob } from '../../src/report/report-data.js';
import { readReportOutline } from '../../src/report/report-outline.js';
import { ReportTally } from '../../src/report/report-tally.js';
import { reportWindows } from '../../src/report/report-windows.js';
import { resultsCsv } from '../../src/report/results-files.js';
import { resultsJson } from '../../src/report/results-json.js';
import { hrefTo, writeRunReport, type WriteReportInput } from '../../src/report/write-report.js';
import { recordedNights } from './fixtures/recorded-nights.js';

/**
 * The report is made a window of jobs at a time (report-windows.ts), its HTML's head and its CSV's
 * columns known only once every job is read: whatever the window, its three files are what the
 * renderers of the whole report make of every job at once.
 */
const NOW = Date.UTC(2026, 0, 2);
const FILES = ['index.html', 'results.csv', 'results.json'] as const;

/** The three files written with windows of `windowJobs` jobs, each to a folder of its own (then moved back to one place, so their links agree). */
async function written(input: WriteReportInput, windowJobs?: number): Promise<[html: string, csv: string, json: string]> {
  const out = join(input.plan.outputsDir, 'report', 'index.html');
  const report = await writeRunReport({ ...input, now: NOW, ...(windowJobs ? { windowJobs } : {}) });
  expect(readdirSync(dirname(out)).sort(), 'no scratch file left beside the report').toEqual([...FILES]);
  const [html, csv, json] = FILES.map((name) => readFileSync(join(dirname(report.html), name), 'utf8')) as [string, string, string];
  renameSync(dirname(out), `${dirname(out)}-${windowJobs ?? 'default'}`);
  return [html, csv, json];
}

describe('the report made a window of jobs at a time', () => {
  test('is the same whatever the window: a job at a time, two, or all at once', async () => {
    const { plan, location } = await recordedNights();
    const [one, two, all] = [await written({ plan, statePath: location }, 1), await written({ plan, statePath: location }, 2), await written({ plan, statePath: location })];
    expect(one).toEqual(all);
    expect(two).toEqual(all);
  });

  test('is, file for file, what the renderers make of every job held at once', async () => {
    const { plan, location } = await recordedNights();
    const outline = await readReportOutline({ plan, statePath: location, now: NOW });
    const [jobs, tally] = [[] as ReportJob[], new ReportTally(plan)];
    for await (const window of reportWindows(plan, location, outline, 2)) {
      for (const job of window) {
        jobs.push(job);
        tally.add(job);
      }
    }
    const data = { ...tally.head(outline.base, outline.money, outline.members), jobs };
    const [html, csv, json] = await written({ plan, statePath: location }, 2);
    expect(csv).toBe(resultsCsv(data));
    expect(json).toBe(resultsJson(data));
    expect(html).toBe(renderReport(data, { outputsHref: hrefTo(join(plan.outputsDir, 'report'), plan.outputsDir) }));
  });

  test("gives each step's lines the columns of rows seen after them, empty, and shows what changed", async () => {
    const { plan, location } = await recordedNights();
    const [, csv, json] = await written({ plan, statePath: location }, 1);
    expect(csv.split('\r\n')[0]).toMatch(/^origin,sku,script,id,tone,matrix\.mood,step,label,state,/);
    const rows = parse(csv, { columns: true }) as Record<string, string>[];
    expect(rows.map((r) => [r.label, r.state, r.sku, r.id, r.tone, r['matrix.mood'], r.reason])).toEqual([
      ['short-A', 'done', 'A', '', '', '', ''],
      ['short-B', 'failed', 'B', '', '', '', "'=Render failed: bad frame"],
      ['short-C', 'changed', 'C', '', '', '', ''],
      ['teaser-calm', 'done', '', '', '', 'calm', ''],
      ['teaser-wild', 'not submitted', '', '', '', 'wild', ''],
      ['extra-X', 'in doubt', '', 'X', 'warm', '', 'no answer'],
    ]);
    const a = (JSON.parse(json) as { jobs: { label: string; history: { creditsUsed: number; outputs: string[] }[] }[] }).jobs[0];
    expect(a?.history).toEqual([{ key: expect.stringMatching(/^shorts:/) as string, creditsUsed: 5, outputs: ['shorts/short-A.mp4'] }]);
  });
});
