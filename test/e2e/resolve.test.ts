import { afterEach, describe, expect, test } from 'vitest';
import type { FaultName } from '../../src/sandbox/index.js';
import { ManualClock } from '../../src/util/clock.js';
import { countStatuses, openProject, STORES, TIME_SCALE, type Project, type StoreKind } from './harness.js';
import { scriptsCsv, shortsManifest } from './shorts-fixture.js';

let project: Project | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

const HOUR = 3_600_000;

/**
 * A project whose sandbox loses every creating answer after making the job (AI Shorts cannot be
 * searched, so each is held in doubt), with `faults` besides, on a clock the test moves: a remote
 * job ends only when the test says so. Runs the manifest once (exit 5) and returns the remote jobs.
 */
async function shortsInDoubt(store: StoreKind, skus: string[], faults: FaultName[] = []) {
  const clock = new ManualClock(Date.now());
  const rates = Object.fromEntries([['resetAfterCreate', 1], ...faults.map((f) => [f, 1])]);
  project = await openProject({ clock, faults: { rates }, store });
  project.write('scripts.csv', scriptsCsv(skus));
  project.write('m.yaml', shortsManifest('m'));
  const run = await project.cli(['run', 'm.yaml', '--time-scale', TIME_SCALE]);
  expect(run.exitCode, run.stderr).toBe(5);
  const made = project.sandbox.jobs();
  const idOf = (sku: string) => made.find((j) => String(j.body.script).includes(sku))!.id;
  return { p: project, clock, idOf };
}

/** The job row of the AI Short whose script names `sku`. */
const row = async (p: Project, sku: string) =>
  (await p.rows<{ key: string; status: string; remote_id: string; remote_status: string; failed_reason: string | null; credits_used: number | null; credits_reserved: number }>(
    "SELECT key, status, remote_id, remote_status, failed_reason, credits_used, credits_reserved FROM jobs WHERE request LIKE '%' || ? || '%'",
    sku,
  ))[0]!;

describe.each(STORES)('on %s', (store) => {
  describe('resolve --adopt records the state the service shows', () => {
    test.each([
      ['jobFailure', 'failed', 'Generation failed: the renderer reported an error (sandbox fault jobFailure)'],
      ['jobRejection', 'rejected', 'Rejected: the input did not pass content review (sandbox fault jobRejection)'],
    ] as const)('a remote job that ended by %s is adopted %s, with the service\'s reason and cost, and names `reelpipe retry` as what comes next', async (fault, state, reason) => {
      const { p, clock, idOf } = await shortsInDoubt(store, ['TR-1'], [fault]);
      clock.advance(HOUR);
      const remote = p.sandbox.jobs()[0]!;
      expect(remote.status).toBe(state);

      const adopted = await p.cli(['resolve', 'm.yaml', 'short-TR-1', '--adopt', idOf('TR-1')]);
      expect(adopted.exitCode, adopted.stderr).toBe(0);
      expect(adopted.stdout).toBe(`short-TR-1 (${(await row(p, 'TR-1')).key}): adopted ${remote.id} (${state}: ${reason}); \`reelpipe retry m.yaml\` resubmits it`);
      expect(await row(p, 'TR-1')).toMatchObject({ status: state, remote_id: remote.id, remote_status: state, failed_reason: reason, credits_used: remote.credits_used });
      const resolved = await p.rows<{ data: string }>("SELECT data FROM events WHERE type = 'job:resolved'");
      expect(JSON.parse(resolved[0]!.data)).toMatchObject({ from: 'in_doubt', to: state, decision: 'adopt', remoteId: remote.id, failedReason: reason });
    });

    test('a remote job already done is adopted finished, its files\' links recorded as the tracker records them: the next run downloads them and creates nothing', async () => {
      const { p, clock, idOf } = await shortsInDoubt(store, ['TR-1']);
      clock.advance(HOUR);
      const adopted = await p.cli(['resolve', 'm.yaml', 'short-TR-1', '--adopt', idOf('TR-1')]);
      expect(adopted.exitCode, adopted.stderr).toBe(0);
      expect(adopted.stdout).toMatch(/: adopted \S+ \(finished\); the next run downloads its outputs, paying nothing more$/);
      expect(await row(p, 'TR-1')).toMatchObject({ status: 'done', credits_used: 5, credits_reserved: 0 });
      expect(await p.rows<{ url: string }>('SELECT url FROM outputs')).toEqual([{ url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\//) }]);

      const next = await p.cli(['run', 'm.yaml', '--time-scale', TIME_SCALE]);
      expect(next.exitCode, next.stderr).toBe(0);
      expect(await countStatuses(p)).toEqual({ downloaded: 1 });
      expect(p.sandbox.stats().created.ai_short).toBe(1);
    });

    test('a remote job still under way (its clock never moved) is adopted submitted, saying what the service says of it', async () => {
      const { p, idOf } = await shortsInDoubt(store, ['TR-1']);
      const adopted = await p.cli(['resolve', 'm.yaml', 'short-TR-1', '--adopt', idOf('TR-1')]);
      expect(adopted.exitCode, adopted.stderr).toBe(0);
      expect(adopted.stdout).toMatch(/: adopted \S+ \(submitted, (pending|in_queue|running) at the service\); the next run tracks and downloads it, paying nothing more$/);
      expect(await row(p, 'TR-1')).toMatchObject({ status: 'submitted', failed_reason: null, credits_used: null });
    });
  });

  describe('resolve --from FILE settles many jobs in doubt, all or nothing', () => {
    test('one line that fails its check and nothing is settled (exit 2, every problem named by FILE:LINE); the file fixed, every decision is recorded together', async () => {
      const { p, clock, idOf } = await shortsInDoubt(store, ['TR-1', 'TR-2', 'TR-3']);
      clock.advance(HOUR);
      const unknown = '00000000-0000-4000-8000-000000000000';
      p.write('decisions.csv', [
        '# found in the service\'s dashboard',
        `short-TR-1,${idOf('TR-1')}`,
        '',
        `short-TR-2,${unknown}`,
        `short-TR-3,${idOf('TR-1')}`,
        'short-TR-9,absent',
        'short-TR-1,absent',
        'short-TR-3',
      ].join('\n'));
      const refused = await p.cli(['resolve', 'm.yaml', '--from', 'decisions.csv']);
      expect(refused.exitCode).toBe(2);
      expect(refused.stderr.split('\n')).toEqual([
        'reelpipe: decisions.csv: 5 problems; nothing was settled',
        expect.stringMatching(new RegExp(`^decisions\\.csv:4 {2}${unknown} was not adopted for short-TR-2 \\(shorts:\\w{12}\\): the service knows no ai_short ${unknown}$`)),
        `decisions.csv:5  ${idOf('TR-1')} is adopted on line 2 already: one remote job belongs to one job`,
        'decisions.csv:6  no job of m is called "short-TR-9": give its key or its label',
        expect.stringMatching(/^decisions\.csv:7 {2}short-TR-1 \(shorts:\w{12}\) is named on line 2 already: one decision per job$/),
        'decisions.csv:8  expected `JOB,REMOTE_ID` (it exists: adopt it) or `JOB,absent` (nothing was created), JOB being its key or label; got "short-TR-3"',
      ]);
      expect(await countStatuses(p)).toEqual({ in_doubt: 3 });
      expect(await p.rows("SELECT type FROM events WHERE type = 'job:resolved'")).toEqual([]);

      p.write('decisions.csv', ['# found in the service\'s dashboard', `short-TR-1,${idOf('TR-1')}`, '', 'short-TR-2,absent', `"short-TR-3",${idOf('TR-3')}`, ''].join('\n'));
      const settled = await p.cli(['resolve', 'm.yaml', '--from', 'decisions.csv']);
      expect(settled.exitCode, settled.stderr).toBe(0);
      expect(settled.stdout.split('\n')).toEqual([
        expect.stringMatching(new RegExp(`^short-TR-1 \\(shorts:\\w{12}\\): adopted ${idOf('TR-1')} \\(finished\\); the next run downloads its outputs, paying nothing more$`)),
        expect.stringMatching(/^short-TR-2 \(shorts:\w{12}\): recorded as never created; the next run submits it again \(and pays for it\)$/),
        expect.stringMatching(new RegExp(`^short-TR-3 \\(shorts:\\w{12}\\): adopted ${idOf('TR-3')} \\(finished\\); `)),
        'decisions.csv: 3 jobs settled, in one transaction',
      ]);
      expect(await countStatuses(p)).toEqual({ done: 2, planned: 1 });
      const resolved = (await p.rows<{ data: string }>("SELECT data FROM events WHERE type = 'job:resolved' ORDER BY id")).map((e) => JSON.parse(e.data) as { from: string; decision: string; by: string });
      expect(resolved.map((e) => [e.decision, e.from])).toEqual([['adopt', 'decisions.csv:2'], ['absent', 'decisions.csv:4'], ['adopt', 'decisions.csv:5']]);
      expect(resolved.every((e) => /.+@.+/.test(e.by))).toBe(true);
    });
  });
});

describe('resolve --from FILE is checked before anything is read', () => {
  test.each([
    [['short-TR-1', '--from', 'd.csv']],
    [['--from', 'd.csv', '--absent']],
    [['--from', 'd.csv', '--adopt', 'r-1']],
  ])('--from goes alone: resolve m.yaml %s is a usage error', async (args) => {
    project = await openProject();
    const result = await project.cli(['resolve', 'm.yaml', ...args]);
    expect([result.exitCode, result.stderr]).toEqual([2, 'reelpipe: --from FILE settles the jobs its lines name: give no JOB, --adopt or --absent with it']);
  });

  test.each([
    ['more than 10,000 lines', 'short-TR-1,absent\n'.repeat(10_001), 'd.csv:10001  more than 10,000 lines (10,001): a --from file holds at most 10,000; split it'],
    ['more than 4 MiB', `short-TR-1,${'x'.repeat(4 * 1024 * 1024)}\n`, 'd.csv  4,194,316 bytes: a --from file holds at most 4 MiB (and 10,000 lines); split it'],
  ])('a file of %s is refused, located, before any line is read', async (_, text, said) => {
    project = await openProject();
    project.write('scripts.csv', scriptsCsv(['TR-1']));
    project.write('m.yaml', shortsManifest('m'));
    project.write('d.csv', text);
    const result = await project.cli(['resolve', 'm.yaml', '--from', 'd.csv']);
    expect([result.exitCode, result.stderr]).toEqual([2, `reelpipe: d.csv: 1 problem; nothing was settled\n${said}`]);
    expect(project.sandbox.stats().requests).toEqual({});
  });
});
