import { describe, expect, test } from 'vitest';
import { renderReport } from '../../src/report/html/render-report.js';
import { mediaOf } from '../../src/report/media.js';
import { hrefTo } from '../../src/report/write-report.js';
import { reportData, reportJob } from './fixtures/report-data.js';

/** The report page: a pure function of its data, every user or service text escaped, nothing fetched. */
const HOSTILE = '</script><script>alert(1)</script><img src=x onerror=alert(2)>';
const render = (data = reportData([reportJob()])) => renderReport(data, { outputsHref: '../' });

describe('the report page', () => {
  test('is the same text for the same data (pure)', () => {
    expect(render()).toBe(render());
  });

  test('escapes labels, rows, reasons and names wherever they appear', () => {
    const job = reportJob({ label: HOSTILE, origin: HOSTILE, state: 'failed', status: 'failed', reason: HOSTILE, remoteId: HOSTILE, key: `shorts:${HOSTILE}` });
    const html = render(reportData([job], { name: HOSTILE, manifest: HOSTILE }));
    // The page's own two scripts (data and code), and no other.
    expect(html.match(/<script/g)).toHaveLength(2);
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
    // In the JSON data, `<` is written as \u003c: the data cannot close its script element.
    const data = /<script type="application\/json" id="report-data">([\s\S]*?)<\/script>/.exec(html)?.[1] ?? '';
    expect(data).not.toContain('<');
    expect(JSON.parse(data).jobs[0].l).toBe(HOSTILE);
  });

  test('says what the page may load: only itself, data: pictures and files beside it', () => {
    expect(render()).toContain(`content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src 'self' data:; media-src 'self'; frame-src 'self'`);
    expect(render()).not.toMatch(/(src|href)="(https?:)?\/\//);
  });

  test('lists failed, refused, in-doubt and undownloaded jobs with the reason and what to do', () => {
    const html = render(reportData([
      reportJob(),
      reportJob({ key: 'shorts:2', label: 'short-B', state: 'failed', status: 'failed', reason: 'Render failed', outputs: [] }),
      reportJob({ key: 'shorts:3', label: 'short-C', state: 'in doubt', status: 'in_doubt', reason: 'HTTP 500, no answer', outputs: [] }),
    ]));
    const failures = /<section id="failures">([\s\S]*?)<\/section>/.exec(html)?.[1] ?? '';
    expect(failures).toContain('Failures and jobs in doubt (2)');
    expect(failures).toMatch(/short-B[\s\S]*reason: Render failed[\s\S]*what to do: reelpipe retry \/m\/demo\.yaml/);
    expect(failures).toMatch(/short-C[\s\S]*reason: HTTP 500, no answer[\s\S]*--resubmit-in-doubt/);
    expect(failures).not.toContain('short-A');
  });

  test('a run several hosts shared names them in the header, with their jobs and where each stands, and each job needing attention names its host', () => {
    const hosts = [{ host: 'cron-a', runId: 1, state: 'left' as const, jobs: 2 }, { host: 'cron-<b>', runId: 2, state: 'gone' as const, jobs: 1 }];
    const html = render(reportData([reportJob(), reportJob({ key: 'shorts:2', label: 'short-B', state: 'in doubt', status: 'in_doubt', reason: 'lost mid-POST', outputs: [], host: 'cron-<b>' })], { hosts }));
    expect(html).toContain('<p id="hosts">hosts of the run: cron-a (2 jobs, left) · cron-&lt;b&gt; (1 job, gone)</p>');
    expect(/<section id="failures">([\s\S]*?)<\/section>/.exec(html)?.[1]).toContain('host cron-&lt;b&gt;');
    // One host: nothing to name.
    expect(render(reportData([reportJob()], { hosts: [hosts[0]!] }))).not.toContain('id="hosts"');
  });

  test('marks a step whose jobs cost more than their high estimate, in the table and the chart', () => {
    const html = render(reportData([reportJob({ used: 9, overHigh: true })]));
    expect(html).toContain('<td class="n over">1 over</td>');
    expect(html).toContain('fill="var(--over)"');
  });

  test('shows an unknown estimate as unknown, never 0', () => {
    const data = reportData([reportJob({ estimate: null, used: null })]);
    data.totals.estimate = null;
    data.totals.unknownEstimates = 1;
    const totals = /<section id="totals">([\s\S]*?)<\/section>/.exec(render(data))?.[1] ?? '';
    expect(totals).toContain('<b>unknown</b><span>credits used</span>');
    expect(totals).toContain('<b>unknown</b><span>credits estimated</span>');
  });
});

describe('where the page finds the outputs', () => {
  test.each([
    ['/p/out/report', '/p/out', '../'],
    ['/p/out', '/p/out', './'],
    ['/p/elsewhere', '/p/out dir', '../out%20dir/'],
  ])('from %s to %s is %s', (folder, outputs, href) => {
    expect(hrefTo(folder, outputs)).toBe(href);
  });
});

describe('how a file is shown', () => {
  test.each([
    ['a.mp4', 'video/mp4', 'video'],
    ['a.bin', 'video/quicktime', 'video'],
    ['a.html', 'text/html; charset=utf-8', 'html'],
    ['a.png', null, 'image'],
    ['a.m4a', 'application/octet-stream', 'audio'],
    ['a.txt', 'text/plain', 'text'],
    ['a.zip', null, 'file'],
  ])('%s (%s) as %s', (path, type, media) => {
    expect(mediaOf(path, type)).toBe(media);
  });
});
