import { afterEach, describe, expect, test } from 'vitest';
import type { FaultName } from '../../src/sandbox/index.js';
import { ManualClock } from '../../src/util/clock.js';
import { openProject, statusCounts, TIME_SCALE, type Project } from './harness.js';
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
async function shortsInDoubt(skus: string[], faults: FaultName[] = []) {
  const clock = new ManualClock(Date.now());
  const rates = Object.fromEntries([['resetAfterCreate', 1], ...faults.map((f) => [f, 1])]);
  project = await openProject({ clock, faults: { rates } });
  project.write('scripts.csv', scriptsCsv(skus));
  project.write('m.yaml', shortsManifest('m'));
  const run = await project.cli(['run', 'm.yaml', '--time-scale', TIME_SCALE]);
  expect(run.exitCode, run.stderr).toBe(5);
  const made = project.sandbox.jobs();
  const idOf = (sku: string) => made.find((j) => String(j.body.script).includes(sku))!.id;
  return { p: project, clock, idOf };
}

/** The job row of the AI Short whose script names `sku`. */
const row = (p: Project, sku: string) =>
  p.query<{ key: string; status: string; remote_id: string; remote_status: string; failed_reason: string | null; credits_used: number | null; credits_reserved: number }>(
    "SELECT key, status, remote_id, remote_status, failed_reason, credits_used, credits_reserved FROM jobs WHERE request LIKE '%' || ? || '%'",
    sku,
  )[0]!;

describe('resolve --adopt records the state the service shows', () => {
  test.each([
    ['jobFailure', 'failed', 'Generation failed: the renderer reported an error (sandbox fault jobFailure)'],
    ['jobRejection', 'rejected', 'Rejected: the input did not pass content review (sandbox fault jobRejection)'],
  ] as const)('a remote job that ended by %s is adopted %s, with the service\'s reason and cost, and names `reelpipe retry` as what comes next', async (fault, state, reason) => {
    const { p, clock, idOf } = await shortsInDoubt(['TR-1'], [fault]);
    clock.advance(HOUR);
    const remote = p.sandbox.jobs()[0]!;
    expect(remote.status).toBe(state);

    const adopted = await p.cli(['resolve', 'm.yaml', 'short-TR-1', '--adopt', idOf('TR-1')]);
    expect(adopted.exitCode, adopted.stderr).toBe(0);
    expect(adopted.stdout).toBe(`short-TR-1 (${row(p, 'TR-1').key}): adopted ${remote.id} (${state}: ${reason}); \`reelpipe retry m.yaml\` resubmits it`);
    expect(row(p, 'TR-1')).toMatchObject({ status: state, remote_id: remote.id, remote_status: state, failed_reason: reason, credits_used: remote.credits_used });
    const resolved = p.query<{ data: string }>("SELECT data FROM events WHERE type = 'job:resolved'");
    expect(JSON.parse(resolved[0]!.data)).toMatchObject({ from: 'in_doubt', to: state, decision: 'adopt', remoteId: remote.id, failedReason: reason });
  });

  test('a remote job already done is adopted finished, its files\' links recorded as the tracker records them: the next run downloads them and creates nothing', async () => {
    const { p, clock, idOf } = await shortsInDoubt(['TR-1']);
    clock.advance(HOUR);
    const adopted = await p.cli(['resolve', 'm.yaml', 'short-TR-1', '--adopt', idOf('TR-1')]);
    expect(adopted.exitCode, adopted.stderr).toBe(0);
    expect(adopted.stdout).toMatch(/: adopted \S+ \(finished\); the next run downloads its outputs, paying nothing more$/);
    expect(row(p, 'TR-1')).toMatchObject({ status: 'done', credits_used: 5, credits_reserved: 0 });
    expect(p.query<{ url: string }>('SELECT url FROM outputs')).toEqual([{ url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\//) }]);

    const next = await p.cli(['run', 'm.yaml', '--time-scale', TIME_SCALE]);
    expect(next.exitCode, next.stderr).toBe(0);
    expect(statusCounts(p)).toEqual({ downloaded: 1 });
    expect(p.sandbox.stats().created.ai_short).toBe(1);
  });

  test('a remote job still under way (its clock never moved) is adopted submitted, saying what the service says of it', async () => {
    const { p, idOf } = await shortsInDoubt(['TR-1']);
    const adopted = await p.cli(['resolve', 'm.yaml', 'short-TR-1', '--adopt', idOf('TR-1')]);
    expect(adopted.exitCode, adopted.stderr).toBe(0);
    expect(adopted.stdout).toMatch(/: adopted \S+ \(submitted, (pending|in_queue|running) at the service\); the next run tracks and downloads it, paying nothing more$/);
    expect(row(p, 'TR-1')).toMatchObject({ status: 'submitted', failed_reason: null, credits_used: null });
  });
});
