import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, test } from 'vitest';
import { CREATING_CONNECTIONS } from '../../src/api/index.js';
import { FAULT_PROFILES } from '../../src/sandbox/index.js';
import { CHAIN_MANIFEST } from '../helpers/chain-manifest.js';
import { webhookFlags } from '../helpers/free-port.js';
import { countStatuses, openProject, statusCounts, STORES, TIME_SCALE, type Project } from './harness.js';

let project: Project | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

/** A short, then a Boreal teaser that waits for it: the teaser's POST is always the run's second. */
const TWO = `
version: 1
name: teaser
outputs: out
steps:
  - id: short
    kind: ai_short
    with: { script: "Every trail starts with one step.", style: 3D, aspect_ratio: 9x16 }
  - id: teaser
    kind: boreal
    needs: [short]
    with: { prompt: A shoe in a stream, resolution: 720p, duration: 10 }
`;

const remoteIdOf = async (p: Project, step: string) => (await p.rows<{ remote_id: string }>('SELECT remote_id FROM jobs WHERE step = ?', step))[0]?.remote_id;

/** Runs the manifest so the teaser's POST is killed at `point`, then once more: the teaser is held in doubt (exit 5). */
async function teaserInDoubt(p: Project, point: 'after-post:2' | 'before-post:2'): Promise<void> {
  p.write('m.yaml', TWO);
  const killed = await p.cli(['run', 'm.yaml', '--time-scale', TIME_SCALE], { REELPIPE_TEST_KILL_AT: point });
  expect(killed.signal, killed.stderr).toBe('SIGKILL');
  const held = await p.cli(['run', 'm.yaml', '--time-scale', TIME_SCALE]);
  expect(held.exitCode, held.stderr).toBe(5);
}

// Why 60 s: each test runs the CLI eight to ten times, on PostgreSQL each opening a connection, on a busy machine.
describe.each(STORES)('on %s', { timeout: 60_000 }, (store) => {
  describe('reelpipe doubt and resolve', () => {
    test('doubt lists the job with its window, body and ways; an adopt of another job\'s id or an unknown id is refused; the real id is adopted and never paid twice', async () => {
      project = await openProject({ store });
      await teaserInDoubt(project, 'after-post:2');

      const doubt = await project.cli(['doubt', 'm.yaml']);
      expect(doubt.exitCode, doubt.stderr).toBe(0);
      expect(doubt.stdout).toMatch(/^m\.yaml: 1 job in doubt/);
      expect(doubt.stdout).toMatch(/teaser +\(teaser:\w{12}, boreal\)\n {2}why: found submitting at start-up.*\n {2}sent: \S+Z; created, if at all, by \S+Z\n {2}body \w{12}:\n {4}prompt: A shoe in a stream/);
      expect(doubt.stdout).toContain('reelpipe resolve m.yaml "teaser" --adopt REMOTE_ID');
      const json = JSON.parse((await project.cli(['doubt', 'm.yaml', '--json'])).stdout) as { jobs: { key: string; asked: Record<string, unknown> }[] };
      expect(json.jobs).toHaveLength(1);
      expect(json.jobs[0]?.asked).toMatchObject({ prompt: 'A shoe in a stream', duration: 10 });

      const others = await project.cli(['resolve', 'm.yaml', 'teaser', '--adopt', (await remoteIdOf(project, 'short'))!]);
      expect(others.exitCode).toBe(2);
      expect(others.stderr).toMatch(/was not adopted for teaser .*: \S+ already belongs to job short:\w{12}/);
      const unknown = await project.cli(['resolve', 'm.yaml', 'teaser', '--adopt', randomUUID()]);
      expect(unknown.exitCode).toBe(2);
      expect(unknown.stderr).toMatch(/the service knows no boreal/);
      // A Boreal job nobody owns, but made from another request: not the one this POST made.
      const stranger = (await (await fetch(`${project.sandbox.url}/api/boreal/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'X-API-ID': 'e2e-api-id', 'X-API-KEY': 'e2e-api-key-secret' },
        body: JSON.stringify({ prompt: 'A boat at dawn', resolution: '720p', duration: 10 }),
      })).json()) as { id: string };
      const mismatch = await project.cli(['resolve', 'm.yaml', 'teaser', '--adopt', stranger.id]);
      expect(mismatch.exitCode).toBe(2);
      expect(mismatch.stderr).toContain(`${stranger.id} was not adopted for teaser`);
      expect(mismatch.stderr).toContain(`boreal ${stranger.id} does not match what the attempt asked for`);

      const made = project.sandbox.jobs().find((j) => j.kind === 'boreal' && j.id !== stranger.id);
      // Once the job the POST made has finished at the service, adopting it records it finished.
      while (project.sandbox.jobs().find((j) => j.id === made?.id)?.status !== 'done') await new Promise((resolve) => setTimeout(resolve, 20));
      const adopted = await project.cli(['resolve', 'm.yaml', 'teaser', '--adopt', String(made?.id)]);
      expect(adopted.exitCode, adopted.stderr).toBe(0);
      expect(adopted.stdout).toMatch(/adopted .* \(finished\); the next run downloads its outputs, paying nothing more/);
      const resolved = await project.rows<{ data: string }>("SELECT data FROM events WHERE type = 'job:resolved'");
      expect(JSON.parse(resolved[0]!.data)).toMatchObject({ decision: 'adopt', remoteId: made?.id, by: expect.stringMatching(/.+@.+/) });

      const last = await project.cli(['run', 'm.yaml', '--time-scale', TIME_SCALE]);
      expect(last.exitCode, last.stderr).toBe(0);
      expect(await countStatuses(project)).toEqual({ downloaded: 2 });
      // The teaser's own job and the stranger made by hand above: nothing was created again.
      expect(project.sandbox.stats().created.boreal).toBe(2);
      expect(project.sandbox.stats().duplicates.total).toBe(0);
    });

    test('--absent plans the job again (the next run submits it once); a job not in doubt cannot be resolved', async () => {
      project = await openProject({ store });
      await teaserInDoubt(project, 'before-post:2');
      const absent = await project.cli(['resolve', 'm.yaml', 'teaser', '--absent']);
      expect(absent.exitCode, absent.stderr).toBe(0);
      expect(absent.stdout).toMatch(/recorded as never created; the next run submits it again/);
      const resolved = await project.rows<{ data: string }>("SELECT data FROM events WHERE type = 'job:resolved'");
      expect(JSON.parse(resolved[0]!.data)).toMatchObject({ decision: 'absent', by: expect.stringMatching(/.+@.+/) });
      const again = await project.cli(['resolve', 'm.yaml', 'teaser', '--absent']);
      expect(again.exitCode).toBe(2);
      expect(again.stderr).toMatch(/is not in doubt \(it is not submitted\)/);
      const last = await project.cli(['run', 'm.yaml', '--time-scale', TIME_SCALE]);
      expect(last.exitCode, last.stderr).toBe(0);
      expect(project.sandbox.stats().created.boreal).toBe(1);
    });
  });

  describe('jobs planned behind a job in doubt that no run can settle', () => {
    test('end the run with exit 5, naming which jobs wait on which, not exit 4 run after run; once it is resolved they run', async () => {
      project = await openProject({ store });
      project.write('chain.yaml', CHAIN_MANIFEST);
      // Killed after the short's POST, the next run finds it submitting and holds it in doubt.
      const killed = await project.cli(['run', 'chain.yaml', '--time-scale', TIME_SCALE], { REELPIPE_TEST_KILL_AT: 'after-post:1' });
      expect(killed.signal, killed.stderr).toBe('SIGKILL');
      for (let night = 0; night < 2; night++) {
        const held = await project.cli(['run', 'chain.yaml', '--time-scale', TIME_SCALE]);
        expect(held.exitCode, held.stderr).toBe(5);
        expect(held.stderr).toMatch(/1 job in doubt needs a decision — .*; 3 jobs wait on 1 job in doubt: short \(short:\w{12}\) ← teasers · 5, teasers · 10, final$/m);
        expect(held.stdout).toMatch(/^not submitted, waiting on a job in doubt \(they start once it is resolved: reelpipe doubt, then reelpipe resolve\):\n {2}teasers · 5 \(teasers:\w{12}\) {2}waits on short \(short:\w{12}\)\n.*\n {2}final \(final:\w{12}\) {2}waits on short /m);
      }
      expect(project.sandbox.stats().created).toEqual({ ai_short: 1 });
      const status = await project.cli(['status', 'chain.yaml']);
      expect(status.stdout).toMatch(/^ {2}final {2}final:\w{12} {2}ai_short {2}not submitted.* {2}waits on a job in doubt: short \(short:\w{12}\)$/m);

      const made = project.sandbox.jobs().find((j) => j.kind === 'ai_short');
      const adopted = await project.cli(['resolve', 'chain.yaml', 'short', '--adopt', String(made?.id)]);
      expect(adopted.exitCode, adopted.stderr).toBe(0);
      const last = await project.cli(['run', 'chain.yaml', '--time-scale', TIME_SCALE]);
      expect(last.exitCode, last.stderr).toBe(0);
      expect(await countStatuses(project)).toEqual({ downloaded: 4 });
      expect(project.sandbox.stats().created).toEqual({ ai_short: 2, boreal: 2 });
    });
  });
});

describe('webhooks settle what polling cannot', () => {
  test('on the hostile profile with every delivery arriving, every creation whose answer was lost is adopted from its delivery (custom templates too): none left in doubt, zero duplicates, failures only on the service\'s word', async () => {
    // Every hostile rate, but no dropped deliveries (and Retry-After 0, which changes no outcome),
    // and half of all creating answers lost, so each kind, searchable or not, loses some.
    const rates = { ...FAULT_PROFILES.hostile.rates, webhookDrop: 0, errorAfterCreate: 0.25, resetAfterCreate: 0.25 };
    project = await openProject({ faults: { ...FAULT_PROFILES.hostile, rates, retryAfterSeconds: 0 }, seed: 5 });
    const rows = Array.from({ length: 40 }, (_, i) => `{ t: "Take ${i + 1}: the trail goes on." }`).join(', ');
    project.write('hooks.yaml', `
version: 1
name: hooks
outputs: out
concurrency: 8
steps:
  - id: shorts
    kind: ai_short
    for_each: { rows: [${rows}] }
    with: { script: "{{ row.t }}", style: 3D, aspect_ratio: 9x16 }
  - id: teasers
    kind: boreal
    matrix: { seconds: [5, 10, 15, 20] }
    with: { prompt: A shoe in a stream, resolution: 720p, duration: "{{ matrix.seconds }}" }
  - id: offers
    kind: custom_template
    mode: both
    matrix: { off: [10, 15, 20, 25, 30, 35, 40, 45, 50, 55] }
    with:
      template_id: vid_2b81e4d0
      variables: { offer: "{{ matrix.off }}% off every trail shoe", deadline: Sunday midnight, hero_video: "https://example.com/video/trail-run.mp4" }
`);
    const hooks = await webhookFlags();
    const exits: number[] = [];
    for (let run = 0; run < 8; run++) {
      const result = await project.cli(['run', 'hooks.yaml', '--time-scale', TIME_SCALE, '--rate', '200', ...hooks]);
      exits.push(result.exitCode ?? -1);
      if (result.exitCode !== 4) break;
    }
    const counts = statusCounts(project);
    const held = project.query<{ key: string; doubt_reason: string }>("SELECT key, doubt_reason FROM jobs WHERE status = 'in_doubt'");
    expect(held, JSON.stringify(project.query("SELECT a.job_key, a.state, a.delivered_id, j.doubt_reason FROM attempts a JOIN jobs j ON j.key = a.job_key WHERE j.status = 'in_doubt'"))).toEqual([]);
    expect(counts.in_doubt).toBeUndefined();
    expect([0, 1], `exits ${exits.join(', ')}`).toContain(exits.at(-1));
    expect((counts.downloaded ?? 0) + (counts.failed ?? 0) + (counts.rejected ?? 0)).toBe(54);
    const stats = project.sandbox.stats();
    expect(stats.duplicates.total).toBe(0);
    // Every creating POST that created its job and then lost the answer (a 500 or a reset after
    // creating: the sandbox draws these only then) was adopted from its delivery, one for one.
    const lost = (stats.faults.errorAfterCreate ?? 0) + (stats.faults.resetAfterCreate ?? 0);
    expect(lost).toBeGreaterThan(0);
    const adoptedKinds = project.query<{ kind: string; n: number }>(
      "SELECT j.kind, count(*) AS n FROM events e JOIN jobs j ON j.key = e.job_key WHERE e.type = 'job:reconciled' AND e.data LIKE '%named by the service for this attempt%' GROUP BY j.kind",
    );
    expect(adoptedKinds.reduce((sum, row) => sum + row.n, 0)).toBe(lost);
    // custom_template (like ai_short and boreal) has no list to search: only its delivery names it.
    expect(adoptedKinds.find((row) => row.kind === 'custom_template')?.n ?? 0).toBeGreaterThan(0);
    // A job ends failed (or rejected) only on the service's word: its reason is the service's own.
    const failed = project.query<{ key: string; failed_reason: string | null }>("SELECT key, failed_reason FROM jobs WHERE status IN ('failed', 'rejected')");
    for (const job of failed) expect(job.failed_reason, job.key).toMatch(/\(sandbox fault job(Failure|Rejection)\)/);
    expect(failed).toHaveLength((stats.faults.jobFailure ?? 0) + (stats.faults.jobRejection ?? 0));
  }, 120_000);
});

describe('a webhook_url written in the manifest', () => {
  test('with --webhook-listen, run warns once per step that sets its own (naming the step and its line): those jobs get no per-attempt address', async () => {
    project = await openProject();
    project.write('own.yaml', `version: 1
name: own
outputs: out
steps:
  - id: short
    kind: ai_short
    with: { script: "Every trail starts with one step.", style: 3D, aspect_ratio: 9x16 }
  - id: teasers
    kind: boreal
    matrix: { seconds: [5, 10] }
    with:
      prompt: A shoe in a stream
      resolution: 720p
      duration: "{{ matrix.seconds }}"
      webhook_url: http://127.0.0.1:9/my-own-hook
`);
    const hooks = await webhookFlags();
    const result = await project.cli(['run', 'own.yaml', '--time-scale', TIME_SCALE, ...hooks]);
    expect(result.exitCode, result.stderr).toBe(0);
    const warnings = result.stderr.split('\n').filter((line) => line.includes('webhook_url'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/ warning: step teasers sets its own webhook_url, so --webhook-listen gives its jobs no per-attempt address: one whose create answer is lost cannot be adopted automatically \(own\.yaml:15\)$/);
    const attempts = project.query<{ step: string; token: number }>('SELECT j.step, a.hook_token IS NOT NULL AS token FROM attempts a JOIN jobs j ON j.key = a.job_key ORDER BY j.step');
    expect(attempts).toEqual([{ step: 'short', token: 1 }, { step: 'teasers', token: 0 }, { step: 'teasers', token: 0 }]);

    // Without --webhook-listen the manifest's address is all there is: nothing to warn about.
    const plain = await project.cli(['run', 'own.yaml', '--time-scale', TIME_SCALE]);
    expect(plain.exitCode, plain.stderr).toBe(0);
    expect(plain.stderr).not.toContain('webhook_url');
  });
});

describe('a kill while many jobs are being created', () => {
  test('leaves at most as many jobs submitting as there are sockets for creations: none queued and never sent looks in doubt', async () => {
    project = await openProject({ speed: 200 });
    project.write('many.yaml', `
version: 1
name: many
outputs: out
concurrency: 40
steps:
  - id: teasers
    kind: boreal
    matrix: { n: [${Array.from({ length: 40 }, (_, i) => i + 1).join(', ')}] }
    with: { prompt: "Shot {{ matrix.n }} of a shoe in a stream", resolution: 720p, duration: 5 }
`);
    const killed = await project.cli(['run', 'many.yaml', '--time-scale', TIME_SCALE, '--rate', '500'], { REELPIPE_TEST_KILL_AT: 'after-post:1' });
    expect(killed.signal).toBe('SIGKILL');
    const submitting = project.query<{ n: number }>("SELECT count(*) AS n FROM jobs WHERE status = 'submitting'")[0]?.n ?? 0;
    expect(submitting).toBeGreaterThan(0);
    expect(submitting).toBeLessThanOrEqual(CREATING_CONNECTIONS);
  });
});
