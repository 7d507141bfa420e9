import { describe, expect, test } from 'vitest';
import { HTML_AD_ITEMS } from '../../src/run/adapters/html-ad-items.js';
import {
  ApiBadRequestError,
  ApiConnectionError,
  ApiForbiddenError,
  ApiInDoubtError,
  ApiInvalidResponseError,
  ApiNotFoundError,
  ApiRateLimitError,
  ApiServerError,
  ApiStatusError,
  ApiUnauthorizedError,
} from '../../src/api/index.js';
import { InsufficientCreditsError, InvalidInputError } from '../../src/errors.js';
import { ADAPTERS, adapterFor } from '../../src/run/adapters/index.js';
import { ASSET_PHASES, PERSONA_PHASES, PRODUCT_PHASES, SIMPLE_PHASES, VIDEO_JOB_PHASES, phaseOf } from '../../src/run/adapters/status-maps.js';
import { killHookFromEnv } from '../../src/run/kill-hook.js';
import { matchesIntent } from '../../src/run/reconcile/match-intent.js';
import { expectedSeconds } from '../../src/run/track/expected-duration.js';
import { POLL_BOUNDS, pollDelayMs, predictedDelayMs } from '../../src/run/track/poll-schedule.js';
import { ManualClock } from '../../src/util/clock.js';
import { judgeSubmitError } from '../../src/run/submit/submit-errors.js';
import type { RunResult } from '../../src/run/execute-plan.js';
import { runOutcome } from '../../src/run/outcome.js';
import { StopState } from '../../src/run/run-context.js';
import type { StopReason } from '../../src/run/run-events.js';
import type { Standing } from '../../src/run/standing.js';
import { STEP_KINDS } from '../../src/step-kinds.js';

describe('what a failed creating request means', () => {
  const status = (code: number, body: unknown = {}) => ApiStatusError.from('x.create', code, body);
  test.each<[string, unknown, string]>([
    ['in doubt from the client', new ApiInDoubtError('x.create', 'reset after sending'), 'in-doubt'],
    ['insufficient credits', new InsufficientCreditsError('no credits left'), 'account'],
    ['401', status(401), 'account'],
    ['403', status(403), 'account'],
    ['429 after the client gave up', status(429), 'not-created'],
    ['503 with Retry-After after the client gave up', status(503), 'not-created'],
    ['never sent', new ApiConnectionError('x.create', 'refused', false), 'not-created'],
    ['may have been sent', new ApiConnectionError('x.create', 'reset', true), 'in-doubt'],
    ['400 field error', status(400, { link: ['Invalid link ID'] }), 'rejected'],
    ['404 on a path id', status(404, { detail: 'No Product matches the given query.' }), 'rejected'],
    ['our own body check', new InvalidInputError([{ path: 'script', message: 'required' }]), 'rejected'],
    ['an unreadable 2xx', new ApiInvalidResponseError('x.create', 'id missing'), 'in-doubt'],
    ['anything else', new Error('boom'), 'in-doubt'],
  ])('%s → %s', (_case, error, kind) => expect(judgeSubmitError(error).kind).toBe(kind));

  test('the classes the factory makes are the ones judged', () => {
    expect(status(400)).toBeInstanceOf(ApiBadRequestError);
    expect(status(401)).toBeInstanceOf(ApiUnauthorizedError);
    expect(status(403)).toBeInstanceOf(ApiForbiddenError);
    expect(status(404)).toBeInstanceOf(ApiNotFoundError);
    expect(status(429)).toBeInstanceOf(ApiRateLimitError);
    expect(status(503)).toBeInstanceOf(ApiServerError);
  });

  test('a 429 marks the run as rate limited; a credits refusal names credits', () => {
    expect(judgeSubmitError(status(429))).toMatchObject({ rateLimited: true });
    expect(judgeSubmitError(new InsufficientCreditsError('x'))).toMatchObject({ reason: 'credits' });
  });
});

describe('status names fold into four phases', () => {
  test.each([
    [VIDEO_JOB_PHASES, 'pending', 'pending'],
    [VIDEO_JOB_PHASES, 'in_queue', 'pending'],
    [VIDEO_JOB_PHASES, 'done', 'done'],
    [VIDEO_JOB_PHASES, 'rejected', 'rejected'],
    [SIMPLE_PHASES, 'running', 'pending'],
    [ASSET_PHASES, 'generating', 'pending'],
    [PRODUCT_PHASES, 'image_generated', 'pending'],
    [PRODUCT_PHASES, 'video_generated', 'done'],
    [PERSONA_PHASES, 'reviewing', 'pending'],
    [PERSONA_PHASES, 'rejected', 'rejected'],
    [VIDEO_JOB_PHASES, 'some_new_state', 'pending'],
    [VIDEO_JOB_PHASES, undefined, 'pending'],
  ])('%#: %s → %s', (map, status, phase) => expect(phaseOf(map, status)).toBe(phase));
});

describe('adapters', () => {
  test('every step kind has one', () => expect(Object.keys(ADAPTERS).sort()).toEqual([...STEP_KINDS].sort()));

  test.each([
    ['ai_short', { status: 'done', video_output: 'https://cdn/v.mp4', credits_used: 5 }, 'done', 1],
    ['ai_short', { status: 'done', video_output: null }, 'pending', 0],
    ['ai_short', { status: 'failed', failed_reason: 'bad script' }, 'failed', 0],
    ['lipsync_v2', { status: 'done', output: 'https://cdn/l.mp4' }, 'done', 1],
    ['product_regen', { status: 'video_generated', generated_video_url: 'https://cdn/p.mp4' }, 'done', 1],
    // An HTML ad job's files are its items' (HTML_AD_ITEMS below), whichever attempt made them.
    ['html_ads', { status: 'done', ads: [{ style_id: 'a', url: 'https://cdn/a.html' }, { style_id: 'b', url: null, status: 'failed' }] }, 'done', 0],
    ['asset_generation', { status: 'done', assets: [{ url: 'https://cdn/1.png' }, { url: 'https://cdn/2.png' }] }, 'done', 2],
    ['text_generation', { status: 'done', response_text: 'hello' }, 'done', 1],
    ['persona', { process_status: 'reviewing' }, 'pending', 0],
    ['persona', { process_status: 'done' }, 'done', 0],
  ])('%s reads %j as %s with %i output(s)', (kind, resource, phase, outputs) => {
    const view = ADAPTERS[kind as keyof typeof ADAPTERS].view(resource);
    expect(view.phase).toBe(phase);
    expect(view.outputs).toHaveLength(outputs);
  });

  test.each([
    ['made, with its URL', [{ style_id: 'a', status: 'done', url: 'https://cdn/a.html' }], { state: 'done', url: 'https://cdn/a.html', failedReason: null }],
    ['made, no status given', [{ style_id: 'a', url: 'https://cdn/a.html' }], { state: 'done', url: 'https://cdn/a.html', failedReason: null }],
    ['failed, with its reason', [{ style_id: 'a', status: 'failed', url: null, failed_reason: 'too large' }], { state: 'failed', url: null, failedReason: 'too large' }],
    ['done without a URL', [{ style_id: 'a', status: 'done', url: null }], { state: 'failed', url: null, failedReason: 'the ad finished without a file URL' }],
    ['no item for the style', [{ style_id: 'b', status: 'done', url: 'https://cdn/b.html' }], { state: 'failed', url: null, failedReason: 'the service returned no ad for this style' }],
    ['an unknown status with a URL', [{ style_id: 'a', status: 'queued', url: 'https://cdn/a.html' }], { state: 'failed', url: null, failedReason: 'the ad ended queued' }],
  ])('HTML ad items: %s', (_, ads, outcome) => {
    expect(HTML_AD_ITEMS.read({ status: 'done', ads }, ['a'], null).get('a')).toEqual(outcome);
  });

  test('HTML ad items: a job that failed whole names its reason for a style with no item', () => {
    expect(HTML_AD_ITEMS.read({ status: 'failed', ads: [] }, ['a'], 'No ad could be built').get('a')).toEqual({ state: 'failed', url: null, failedReason: 'No ad could be built' });
  });

  test('a failed job without a reason still says how it ended', () => {
    expect(ADAPTERS.boreal.view({ status: 'rejected' }).failedReason).toBe('ended rejected without a reason');
  });

  test('custom template modes: a preview is finished once its preview URL is there', () => {
    expect(adapterFor('custom_template', 'preview').view({ status: 'running', preview: 'https://cdn/p.mp4' }).phase).toBe('done');
    expect(adapterFor('custom_template', 'both').view({ status: 'running', preview: 'https://cdn/p.mp4' }).phase).toBe('pending');
    expect(adapterFor('custom_template', 'render').remoteIdOf({ id: 'abc' }, { request: {} })).toBe('abc#render');
  });

  test('reconcile strategies: lists for lipsync and ad clones, resend for idempotent kinds, none elsewhere', () => {
    const strategies = Object.fromEntries(Object.values(ADAPTERS).map((a) => [a.kind, a.reconcile]));
    expect(strategies).toMatchObject({ lipsync_v2: 'list-window', ad_clone: 'list-all', link_update: 'resend', persona_delete: 'resend', ai_short: 'none', boreal: 'none' });
  });
});

describe('matching a listed job to an intent', () => {
  const sent = { link: 'L1', video_url: 'https://x/ad.mp4', language: 'de', webhook_url: 'https://hooks/a' };
  test.each<[string, Record<string, unknown>, boolean]>([
    ['the same fields, with extras the service adds', { ...sent, id: '1', status: 'running', aspect_ratio: '9x16', webhook_url: null }, true],
    ['a different language', { ...sent, language: 'fr' }, false],
    ['a field not echoed back', { link: 'L1', video_url: 'https://x/ad.mp4' }, false],
    ['nested objects compared as subsets', { ...sent }, true],
  ])('%s → %s', (_case, resource, match) => expect(matchesIntent(sent, resource)).toBe(match));

  test('nested: the service filling in defaults does not break a match, a changed value does', () => {
    const request = { video_inputs: [{ voice: { type: 'text', input_text: 'Hi' } }] };
    expect(matchesIntent(request, { video_inputs: [{ voice: { type: 'text', input_text: 'Hi', voice_id: null }, background: null }] })).toBe(true);
    expect(matchesIntent(request, { video_inputs: [{ voice: { type: 'text', input_text: 'Hello' } }] })).toBe(false);
    expect(matchesIntent(request, { video_inputs: [] })).toBe(false);
  });

  test('an empty request matches nothing', () => expect(matchesIntent({ webhook_url: 'x' }, { webhook_url: 'x' })).toBe(false));
});

describe('poll intervals', () => {
  const middle = () => 0.5;
  test.each([
    ['a 3 min AI Short is first read a third of the way in', 180, 0, 1, 60_000],
    ['the first read of a resumed job comes when it would have', 180, 50_000, 1, 10_000],
    ['then every sixth of its expected time', 180, 60_000, 1, 30_000],
    ['an overdue AI Short half as often', 180, 400_000, 1, 60_000],
    ['a 6 s asset is read every 2 s (the floor)', 6, 3_000, 1, 2_000],
    ['an avatar under review every 10 min (the ceiling)', 36 * 3600, 36 * 3600_000, 1, POLL_BOUNDS.maxMs],
    ['a sandbox 1000× faster, a thousandth', 180, 60, 0.001, 30],
  ])('%s', (_case, expected, age, scale, delay) => expect(pollDelayMs(expected, age, scale, middle)).toBe(delay));

  test('jitter stays within ±20 %', () => {
    expect(pollDelayMs(180, 60_000, 1, () => 0)).toBe(24_000);
    expect(pollDelayMs(180, 60_000, 1, () => 0.999999)).toBe(36_000);
  });

  const short = (script: string) => ({ kind: 'ai_short' as const, request: { script } });
  const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');
  test.each([
    ['an AI Short of a typical ~30 s script takes its kind\'s typical time', short(words(70)), 180, 180],
    ['a short script, less (at most halved)', short('Hi.'), 180, 90],
    ['a long script, more (at most 4×)', short(words(1000)), 180, 720],
    ['a lipsync by the length of its spoken text', { kind: 'lipsync_v2' as const, request: { video_inputs: [{ voice: { type: 'text', input_text: words(45) } }] } }, 30, 60],
    ['a 20 s Boreal clip twice a 10 s one', { kind: 'boreal' as const, request: { duration: 20 } }, 120, 240],
    ['a kind without a length: its typical time', { kind: 'html_ads' as const, request: {} }, 60, 60],
    ['a job the plan does not know: its typical time', undefined, 60, 60],
  ])('%s', (_case, job, typical, seconds) => expect(Math.round(expectedSeconds(job, typical))).toBe(seconds));

  /** When a job is read, on a ManualClock, following the schedule from submission until `untilMs`. */
  function readTimes(expected: number, untilMs: number): number[] {
    const clock = new ManualClock();
    const start = clock.now();
    const times: number[] = [];
    for (;;) {
      clock.advance(pollDelayMs(expected, clock.now() - start, 1, middle));
      if (clock.now() - start > untilMs) return times;
      times.push(clock.now() - start);
    }
  }

  test.each([
    ['a 1 min job', 60, 180_000, [20_000, 30_000, 40_000, 50_000, 60_000, 70_000, 80_000, 90_000, 100_000, 110_000, 120_000, 130_000, 150_000, 170_000]],
    ['a 12 min job (a long AI Short)', 720, 900_000, [240_000, 360_000, 480_000, 600_000, 720_000, 840_000]],
  ])('%s is read at the times its expected duration sets', (_case, expected, until, times) => {
    expect(readTimes(expected, until)).toEqual(times);
  });
});

describe('the test-only kill hook', () => {
  test('is inert without the variable', () => {
    let kills = 0;
    const hook = killHookFromEnv({}, () => kills++);
    for (let i = 0; i < 5; i++) hook('after-post');
    expect(kills).toBe(0);
  });

  test('fires exactly at the Nth arrival of each named point, ignoring unknown names', () => {
    const fired: string[] = [];
    let point = '';
    const hook = killHookFromEnv({ REELPIPE_TEST_KILL_AT: 'after-post:3,mid-download:1,nonsense:1' }, () => fired.push(point));
    for (const p of ['after-post', 'mid-download', 'after-post', 'after-post', 'after-post', 'mid-download'] as const) {
      point = p;
      hook(p);
    }
    expect(fired).toEqual(['mid-download', 'after-post']);
  });
});

describe('how a stopped run ends', () => {
  const rendering: Standing = { finished: 0, failed: [], rejected: [], hookFailed: [], partlyFailed: [], refused: [], blocked: [], waitingOnDoubt: [], undecided: [], open: { rendering: ['s:1'], toDownload: [], notSubmitted: [], toSearch: [] } };
  const result = (stop: StopReason, message: string) =>
    ({ stop, stopMessage: message, standing: rendering, credits: { estimated: 0, used: 0, spent: 0, cap: null, overruns: [] } }) as unknown as RunResult;
  test.each<[StopReason, string]>([
    ['interrupted', 'INTERRUPTED'],
    ['lock-lost', 'LOCKED'],
    ['deadline', 'UNFINISHED'],
    ['unreachable', 'UNFINISHED'],
    ['local-fault', 'LOCAL_FAULT'],
  ])('a %s stop with a job left ends with %s', (stop, code) => expect(runOutcome(result(stop, 'why'), 'm.yaml')?.code).toBe(code));

  test('a lost lock stops the run at once: submitting, tracking and downloads', () => {
    const state = new StopState();
    state.stop('budget', 'cap');
    expect(state.stop('lock-lost', 'taken')).toBe(true);
    expect(state.halted).toBe(true);
    expect(state.controller.signal.aborted).toBe(true);
  });

  test('a lost lock found after a local fault is what the run says: the fault was the other run taking over', () => {
    const state = new StopState();
    state.stop('local-fault', 'the state database cannot be reached');
    expect(state.stop('lock-lost', 'taken')).toBe(true);
    expect([state.reason, state.message]).toEqual(['lock-lost', 'taken']);
    expect(state.stop('local-fault', 'again')).toBe(false);
    expect(state.reason).toBe('lock-lost');
  });
});

describe('reads once a step’s pace is known (predictedDelayMs)', () => {
  const at = (ageMs: number, misses = 0, webhooks = false) => predictedDelayMs({ predictedMs: 1125, ageMs, misses, webhooks, ordinaryMs: 187 });
  test('the first read comes just past the predicted end: 0.4 %, and never under 5 ms', () => {
    expect(at(0)).toBe(1130);
    expect(at(1000)).toBe(130);
    expect(predictedDelayMs({ predictedMs: 180_000, ageMs: 0, misses: 0, webhooks: false, ordinaryMs: 30_000 })).toBe(180_720);
  });
  test('with webhooks the read is the safety net, half a life later, a tenth of a life after a miss', () => {
    expect(at(0, 0, true)).toBe(1699);
    expect([1, 2].map((misses) => at(1800, misses, true))).toEqual([187, 187]);
    expect(predictedDelayMs({ predictedMs: 1125, ageMs: 1800, misses: 1, webhooks: true, ordinaryMs: 1000 })).toBe(225);
  });
  test('a job found unfinished is read again after a twentieth of its life, doubling per miss, never past the ordinary cadence', () => {
    expect([1, 2, 3, 4].map((misses) => at(1200, misses))).toEqual([56, 113, 187, 187]);
  });
  test('never faster than the 20 ms floor', () => expect(predictedDelayMs({ predictedMs: 100, ageMs: 200, misses: 1, webhooks: false, ordinaryMs: 10 })).toBe(20));
});
