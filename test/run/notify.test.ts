import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { NotifyEvent } from '../../src/manifest/check/hooks-schema.js';
import type { NotifyTarget } from '../../src/manifest/types.js';
import { endingOf, summaryText, type RunSummary } from '../../src/run/notify/run-summary.js';
import { sendNotifications } from '../../src/run/notify/send-notifications.js';
import type { Clock } from '../../src/util/clock.js';
import { startScriptedServer, type ScriptedServer } from '../helpers/scripted-server.js';

/** Notifications against a real server on loopback: the filter, the body, retries, and what is never shown. */
const ENV = { REELPIPE_API_ID: 'acct-id-1234', REELPIPE_API_KEY: 'super-secret-key' };
/** Waits between attempts are the clock's: this one moves on at once, and counts them. */
const waits: number[] = [];
const clock: Clock = { now: () => 0, sleep: async (ms) => void waits.push(ms) };

const summary = (over: Partial<RunSummary> = {}): RunSummary => ({
  name: 'nightly', manifest: '/srv/p/nightly.yaml', runId: 7, ending: 'failure', exitCode: 1,
  message: '2 jobs failed: see the summary, then `reelpipe retry nightly.yaml` (key super-secret-key)', jobs: 5,
  counts: { done: 3, failed: 2 }, credits: { estimated: 50, unknownEstimates: 0, used: 42, unknownUsed: 0, cap: 100, thisRun: { used: 42, unknown: 0 }, apart: { superseded: 0, removed: 0, forgotten: 0 } }, report: '/srv/p/out/report/index.html',
  outputs: '/srv/p/out', elapsedSeconds: 12.5, ...over,
});

let server: ScriptedServer;
const said: string[] = [];
beforeEach(async () => {
  server = await startScriptedServer();
  said.length = 0;
  waits.length = 0;
});
afterEach(() => server.close());

const target = (path: string, on: NotifyEvent[] = ['always']): NotifyTarget => ({ url: [`${server.url}${path}`], on, path: ['notify', 0, 'webhook_url'] });
const send = (targets: NotifyTarget[], s = summary(), env: NodeJS.ProcessEnv = ENV, timeoutMs = 2000) =>
  sendNotifications(targets, s, env, { say: (line) => said.push(line), clock, timeoutMs });

describe('which runs are notified', () => {
  test.each<[number, string]>([[0, 'success'], [1, 'failure'], [2, 'failure'], [3, 'budget'], [4, 'unfinished'], [5, 'in_doubt'], [70, 'failure'], [74, 'failure'], [75, 'failure']])(
    'exit %i is a %s',
    (code, ending) => expect(endingOf(code)).toBe(ending),
  );

  test.each<[RunSummary['ending'], string[]]>([
    ['failure', ['/failures', '/always']],
    ['success', ['/successes', '/always']],
    ['in_doubt', ['/doubts', '/always']],
    ['budget', ['/always']],
  ])('a %s run posts to %j only', async (ending, paths) => {
    for (const p of ['/failures', '/successes', '/doubts', '/always']) server.script('POST', p, { status: 200 }, { status: 200 });
    await send([target('/failures', ['failure']), target('/successes', ['success']), target('/doubts', ['in_doubt', 'unfinished']), target('/always')], summary({ ending }));
    expect(server.requests.map((r) => r.path)).toEqual(paths);
  });
});

describe('the body', () => {
  test('is { text, summary }: Slack text naming the manifest, outcome, counts, credits and report; the summary beside it; no credentials', async () => {
    server.script('POST', '/hook', { status: 200 });
    await send([target('/hook')]);
    const [request] = server.requests;
    expect(request?.headers['content-type']).toBe('application/json');
    const body = JSON.parse(request?.body ?? '{}') as { text: string; summary: RunSummary };
    expect(body.text.split('\n')).toEqual([
      'reelpipe nightly (nightly.yaml): failure (exit 1) — 3 done, 2 failed',
      'credits used 42 of a cap of 100 (estimated 50)',
      'report: /srv/p/out/report/index.html',
      '2 jobs failed: see the summary, then `reelpipe retry nightly.yaml` (key [REDACTED])',
    ]);
    expect(body.summary).toMatchObject({ name: 'nightly', runId: 7, ending: 'failure', exitCode: 1, counts: { done: 3, failed: 2 } });
    expect(request?.body).not.toContain('super-secret-key');
    expect(summaryText(summary({ onFinish: { ok: false, exitCode: 2, error: null } }))).toContain('on_finish hook failed: exit 2');
    // Spend the plan's jobs did not make is said apart; what this run's requests cost, when it is not the whole.
    const later = summary({ credits: { ...summary().credits, used: 47, thisRun: { used: 10, unknown: 0 }, apart: { superseded: 5, removed: 0, forgotten: 0 } } });
    expect(summaryText(later).split('\n')[1]).toBe('credits used 47 of a cap of 100 (estimated 50; this run 10; 5 on earlier versions of changed rows)');
  });
});

describe('delivery', () => {
  test('a 5xx, a 429 and a dropped connection are tried again (1 s, then 2 s apart); the third answer counts', async () => {
    server.script('POST', '/hook', { status: 503 }, { drop: true }, { status: 200 });
    const [result] = await send([target('/hook')]);
    expect(result?.result).toMatchObject({ ok: true, attempts: 3, status: 200 });
    expect(waits).toEqual([1000, 2000]);
    expect(said).toEqual([`notified ${server.url}/… (failure)\n`]);
  });

  test.each([
    ['a 4xx is final', [{ status: 404 }], 1, 'answered 404'],
    ['three 429s give up', [{ status: 429 }, { status: 429 }, { status: 429 }], 3, 'answered 429'],
  ])('%s, said without the address\'s path, and never thrown', async (_, replies, attempts, error) => {
    server.script('POST', '/services/T000/B000/SECRETPATH', ...replies);
    const [result] = await send([target('/services/T000/B000/SECRETPATH')]);
    expect(result?.result).toMatchObject({ ok: false, attempts, error });
    expect(said.join('')).toContain(`reelpipe: notifying ${server.url}/… failed after ${attempts} attempt`);
    expect(said.join('')).not.toContain('SECRETPATH');
  });

  test('a server that never answers is given up after its timeout on each attempt', async () => {
    server.script('POST', '/slow', { hang: true }, { hang: true }, { hang: true });
    const [result] = await send([target('/slow')], summary(), ENV, 150);
    expect(result?.result).toMatchObject({ ok: false, attempts: 3, status: null });
    expect(server.requestsTo('POST', '/slow')).toHaveLength(3);
  });

  test('past the run\'s hard deadline each target still gets one try, bounded by the floor, and no second', async () => {
    server.script('POST', '/slow', { hang: true }, { hang: true });
    server.script('POST', '/fine', { status: 200 });
    // The clock stands at 0 and the deadline has come: each POST gets the 100 ms floor, cut from
    // the minute-long timeout (uncut, this test would run out of time).
    const notified = await sendNotifications([target('/slow'), target('/fine')], summary(), ENV, {
      say: (line) => said.push(line), clock, timeoutMs: 60_000, deadlineAt: 0, floorMs: 100,
    });
    expect(notified.map((n) => n.result?.attempts)).toEqual([1, 1]);
    expect(notified[0]?.result).toMatchObject({ ok: false, status: null, error: expect.stringMatching(/no time left to try again before --max-wait ends$/) });
    expect(notified[1]?.result).toMatchObject({ ok: true, status: 200 });
    expect(server.requestsTo('POST', '/slow')).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  test('{{ env.X }} is read now; unset, nothing is sent and that is said', async () => {
    const viaEnv: NotifyTarget = { url: [{ ns: 'env', name: 'HOOK_URL', text: '{{ env.HOOK_URL }}' }], on: ['always'], path: [] };
    const [skipped] = await send([viaEnv]);
    expect(skipped?.skipped).toBe('environment variable HOOK_URL is not set');
    expect(said).toEqual(['reelpipe: notify.0 not notified: environment variable HOOK_URL is not set (the exit code is unchanged)\n']);
    server.script('POST', '/from-env', { status: 204 });
    const [sent] = await send([viaEnv], summary(), { ...ENV, HOOK_URL: `${server.url}/from-env?token=abc` });
    expect(sent?.result?.ok).toBe(true);
    expect(server.requests[0]?.query).toEqual({ token: 'abc' });
    expect(said.join('')).not.toContain('token=abc');
  });
});
