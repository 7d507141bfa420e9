import { describe, expect, test } from 'vitest';
import { planManifest } from '../../src/plan/index.js';
import { renderSummary } from '../../src/report/summary.js';
import { toNewJobs, type RunResult } from '../../src/run/execute-plan.js';
import { standingOf } from '../../src/run/standing.js';
import { openStore } from '../../src/state/index.js';
import { load, manifestWith } from '../manifest/helpers/temp-tree.js';
import { join } from 'node:path';

const HTML_500 = 'HTTP 500: <!DOCTYPE html>\n<html>\n<head><title>502 Bad Gateway</title></head>\n<body>\n<h1>Bad Gateway</h1>\n<p>upstream\nreset</p>\n</body>\n</html>';

describe('the summary', () => {
  test("a service's reason is one line: an HTML error page is stripped to its words", async () => {
    const plan = planManifest(await load({ 'manifest.yaml': manifestWith([{ id: 'teaser', kind: 'boreal', with: { prompt: 'waves', resolution: '720p', duration: 10 } }]) }));
    const store = await openStore(join(plan.outputsDir, '..', 'state', 'reelpipe.db'));
    try {
      await store.syncPlan(plan.manifestId, toNewJobs(plan));
      const key = plan.jobs[0]!.key;
      await store.write({ key, move: { to: 'submitting', type: 'job:intent' } });
      await store.write({ key, move: { to: 'rejected', change: { failedReason: HTML_500 }, type: 'job:rejected' } });
      const rows = await store.jobs([key]);
      const result: RunResult = {
        counts: { rejected: 1 }, standing: standingOf(plan, new Map(rows.map((row) => [row.key, row])), new Map()), blocked: [], heldInDoubt: [], undownloaded: [], endsRun: true,
        stop: 'budget', stopMessage: `the cap\nstopped it: ${HTML_500}`,
        credits: {
          estimated: 3, unknownEstimates: 0, used: 0, unknownUsed: 0, thisRun: { used: 0, unknown: 0 }, apart: { superseded: 0, removed: 0, forgotten: 0 },
          refunded: { total: 0, derived: 0 }, spent: 0, cap: null, overruns: [],
        },
        requests: { reads: 0 }, noted: rows, money: await store.money(plan.jobs), failedItems: new Map(), labels: new Map([[key, 'teaser']]), overHigh: [],
      };
      const lines = renderSummary(plan, result, 1000).trimEnd().split('\n');
      expect(lines.slice(-3)).toEqual([
        'rejected by the service (fix the input the reason names):',
        `  teaser (${key})  HTTP 500: 502 Bad Gateway Bad Gateway upstream reset`,
        'stopped early: the cap stopped it: HTTP 500: 502 Bad Gateway Bad Gateway upstream reset',
      ]);
    } finally {
      await store.close();
    }
  });
});
