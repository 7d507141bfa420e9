import { describe, expect, test } from 'vitest';
import { renderReport } from '../../src/report/html/render-report.js';
import type { HookRunRow } from '../../src/state/index.js';
import { reportData, reportJob } from './fixtures/report-data.js';

/** Hook results in the report: a failed output hook under its job, the newest on_finish, every text escaped. */
const HOSTILE = '</script><script>alert(1)</script><img src=x onerror=alert(2)>';
const hookRun = (over: Partial<HookRunRow> = {}): HookRunRow => ({
  id: 1, runId: 4, hook: 'on_output', jobKey: 'shorts:2', outputIdx: 0, outputSha256: 'ab', state: 'failed', argv: ['./upload', HOSTILE],
  startedAt: 1000, finishedAt: 2500, exitCode: 3, signal: null, timedOut: false, durationMs: 1500, stdoutTail: '', stderrTail: `bucket missing ${HOSTILE}\n`, error: null,
  ...over,
});
const render = (...args: Parameters<typeof reportData>) => renderReport(reportData(...args), { outputsHref: '../' });

describe('hooks in the report', () => {
  test('a hook-failed job is listed with how its hook ended, its arguments and the end of its stderr, all escaped', () => {
    const job = reportJob({ key: 'shorts:2', state: 'hook failed', status: 'hook_failed', reason: 'on_output hook failed for file shorts/b.mp4: exit 3', hooks: [hookRun()] });
    const html = render([reportJob(), job]);
    const failures = /<section id="failures">([\s\S]*?)<\/section>/.exec(html)?.[1] ?? '';
    expect(failures).toContain('Failures and jobs in doubt (1)');
    expect(failures).toContain('on_output hook, file 0: failed, exit 3 in 1.5 s');
    expect(failures).toContain('reelpipe retry /m/demo.yaml --hooks');
    expect(failures).toContain('bucket missing &lt;/script&gt;');
    expect(html.match(/<script/g)).toHaveLength(2);
    expect(html).not.toContain('<img src=x');
    expect(/<div class="tile bad"><b>1<\/b><span>hook failed<\/span>/.test(html)).toBe(true);
  });

  test('the newest on_finish run has its own section; a timed-out one says so', () => {
    const onFinish = hookRun({ hook: 'on_finish', jobKey: null, outputIdx: null, timedOut: true, exitCode: null, signal: 'SIGTERM', error: 'stopped after its timeout of 5 s' });
    const html = render([reportJob()], { onFinish });
    expect(/<section id="on-finish">([\s\S]*?)<\/section>/.exec(html)?.[1]).toContain('run #4: failed, stopped after its timeout of 5 s in 1.5 s');
    expect(render([reportJob()])).not.toContain('id="on-finish"');
  });
});
