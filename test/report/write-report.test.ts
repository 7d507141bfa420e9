import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { planManifest, type Plan } from '../../src/plan/index.js';
import { writeRunReport } from '../../src/report/write-report.js';
import { toNewJobs } from '../../src/run/execute-plan.js';
import { openStore, type JobState } from '../../src/state/index.js';
import { allStates } from '../state/conformance/harness.js';
import { ManualClock } from '../../src/util/clock.js';
import { load, manifestWith } from '../manifest/helpers/temp-tree.js';

/** The report written from a real plan and a real state database (SQLite in a temp folder). */
const steps = [
  { id: 'shorts', kind: 'ai_short', name: 'short-{{ row.sku }}', for_each: { rows: [{ sku: 'A', script: 'One.' }, { sku: 'B', script: 'Two.' }] }, with: { script: '{{ row.script }}', style: '3D', aspect_ratio: '9x16' } },
  { id: 'teaser', kind: 'boreal', with: { prompt: 'waves', resolution: '720p', duration: 10 } },
];

async function recordedRun(): Promise<{ plan: Plan; statePath: string; clock: ManualClock }> {
  const plan = planManifest(await load({ 'manifest.yaml': manifestWith(steps) }));
  const statePath = join(plan.outputsDir, '..', 'state', 'reelpipe.db');
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const store = await openStore(statePath, clock);
  try {
    await store.syncPlan(plan.manifestId, toNewJobs(plan));
    await store.useManifest(plan.manifestId).startRun('host', 1, null);
    const [a, b] = plan.jobs;
    const t = clock.now();
    await store.recordIntent({ key: a!.key, request: a!.request, hookToken: null, pathId: a!.pathId ?? null, creditsReserved: 0 });
    await store.write({ key: a!.key, move: { to: 'submitted', change: { remoteId: 'r-a', submittedAt: t }, type: 'job:answered' } });
    await store.write({ key: a!.key, move: { to: 'done', change: { creditsUsed: 5, finishedAt: t + 4000, result: {} }, type: 'job:done' } });
    await store.write({ key: a!.key, outputs: { urls: ['https://cdn/a.mp4'], places: [0] } });
    await store.recordDownload(a!.key, 0, { path: 'shorts/short-A.mp4', bytes: 10, sha256: 'x', contentType: 'video/mp4', statStamp: '10:0:0' });
    await store.write({ key: a!.key, move: { to: 'downloaded', type: 'job:downloaded' } });
    await store.recordIntent({ key: b!.key, request: b!.request, hookToken: null, pathId: b!.pathId ?? null, creditsReserved: 0 });
    await store.write({ key: b!.key, move: { to: 'submitted', change: { remoteId: 'r-b', submittedAt: t }, type: 'job:answered' } });
    await store.write({ key: b!.key, move: { to: 'failed', change: { failedReason: 'Render failed: bad frame', finishedAt: t + 2000 }, type: 'job:failed' } });
    await store.finishRun('JOBS_FAILED', {});
  } finally {
    await store.close();
  }
  return { plan, statePath, clock };
}

describe('writeRunReport', () => {
  test('writes index.html, results.csv and results.json in OUTPUTS/report, whole (no part files left)', async () => {
    const { plan, statePath } = await recordedRun();
    const written = await writeRunReport({ plan, statePath, now: Date.UTC(2026, 0, 1, 0, 1) });
    const folder = join(plan.outputsDir, 'report');
    expect(written).toEqual({ html: join(folder, 'index.html'), csv: join(folder, 'results.csv'), json: join(folder, 'results.json'), jobs: 3, outputs: 1 });
    expect(readdirSync(folder).sort()).toEqual(['index.html', 'results.csv', 'results.json']);
    const json = JSON.parse(readFileSync(written.json, 'utf8')) as { run: { id: number; outcome: string; credits: { used: number; unknown: number } }; jobs: { label: string; state: string; credits: { used: number | null }; reason: string | null; submittedAt: string | null }[] };
    // What the run's jobs were charged: a's 5, and b's not reported (unknown, never 0).
    expect(json.run).toMatchObject({ id: 1, outcome: 'JOBS_FAILED', credits: { used: 5, unknown: 1 } });
    expect(json.jobs.map((j) => [j.label, j.state, j.credits.used, j.reason])).toEqual([
      ['short-A', 'done', 5, null],
      ['short-B', 'failed', null, 'Render failed: bad frame'],
      ['teaser', 'not submitted', 0, null],
    ]);
    expect(json.jobs[0]?.submittedAt).toBe('2026-01-01T00:00:00.000Z');
    const html = readFileSync(written.html, 'utf8');
    expect(html).toContain('run #1: started 2026-01-01 00:00:00 UTC');
    expect(html).toMatch(/short-B[\s\S]*reason: Render failed: bad frame/);
  });

  test('with --out writes the HTML there and the results beside it, the outputs still linked relatively', async () => {
    const { plan, statePath } = await recordedRun();
    const out = join(plan.outputsDir, '..', 'elsewhere', 'r.html');
    const written = await writeRunReport({ plan, statePath, out });
    expect([existsSync(out), written.csv]).toEqual([true, join(plan.outputsDir, '..', 'elsewhere', 'results.csv')]);
    expect(readFileSync(out, 'utf8')).toContain('"base":"../test/"');
  });

  test('names a run the manifest does not have, and the runs it has', async () => {
    const { plan, statePath } = await recordedRun();
    await expect(writeRunReport({ plan, statePath, runId: 9 })).rejects.toThrow(UsageError);
    await expect(writeRunReport({ plan, statePath, runId: 9 })).rejects.toThrow(/--run 9: no such run of test; its runs are 1/);
  });

  test('without a state database, every job is not submitted and nothing is in the gallery', async () => {
    const plan = planManifest(await load({ 'manifest.yaml': manifestWith(steps) }));
    const written = await writeRunReport({ plan, statePath: join(plan.outputsDir, 'no.db') });
    expect(written.outputs).toBe(0);
    expect(readFileSync(written.csv, 'utf8').match(/,not submitted,/g)).toHaveLength(3);
  });

  describe("a run's own read of its jobs at its end (RunResult.jobs)", () => {
    const endRead = async (statePath: string, plan: Plan): Promise<JobState[]> => {
      const store = await openStore(statePath, new ManualClock(Date.UTC(2026, 0, 1)));
      try {
        return await allStates(store.useManifest(plan.manifestId));
      } finally {
        await store.close();
      }
    };
    const files = async (plan: Plan, statePath: string, jobs?: JobState[]) => {
      const written = await writeRunReport({ plan, statePath, now: Date.UTC(2026, 0, 1, 0, 1), ...(jobs ? { jobs } : {}) });
      return [readFileSync(written.csv, 'utf8'), readFileSync(written.json, 'utf8')];
    };

    test('gives the report reading the database again gives', async () => {
      const { plan, statePath } = await recordedRun();
      expect(await files(plan, statePath, await endRead(statePath, plan))).toEqual(await files(plan, statePath));
    });

    test('is not used: each window of jobs is read from the database (finding them in the run\'s rows would hold a map of every job)', async () => {
      const { plan, statePath } = await recordedRun();
      const jobs = (await endRead(statePath, plan)).map((row) => (row.status === 'failed' ? { ...row, failedReason: 'as the run read it' } : row));
      const [csv] = await files(plan, statePath, jobs);
      expect(csv).not.toContain('as the run read it');
      expect(csv).toContain(',Render failed: bad frame,');
    });

    test('leaving a job out (a --step run) changes nothing: that job is as the database has it', async () => {
      const { plan, statePath } = await recordedRun();
      const jobs = (await endRead(statePath, plan)).filter((row) => row.step === 'teaser');
      expect(await files(plan, statePath, jobs)).toEqual(await files(plan, statePath));
    });
  });

  test("a run's read of its money at its end (RunResult.money) gives the totals and each job's cost, not read again", async () => {
    const { plan, statePath } = await recordedRun();
    const store = await openStore(statePath, new ManualClock(Date.UTC(2026, 0, 1)));
    const money = await store.useManifest(plan.manifestId).money(plan.jobs).finally(() => store.close());
    const [a] = plan.jobs;
    money.totals.used.known = 99;
    money.byJob.set(a!.key, 7);
    const written = await writeRunReport({ plan, statePath, money });
    const json = JSON.parse(readFileSync(written.json, 'utf8')) as { credits: { used: number }; jobs: { credits: { used: number | null } }[] };
    expect([json.credits.used, json.jobs.map((j) => j.credits.used)]).toEqual([99, [7, null, 0]]);
  });
});
