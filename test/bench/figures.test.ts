import { describe, expect, test } from 'vitest';
import { median, requestCounts, routeClass, serviceTiming, summarise, type SandboxJob } from '../../bench/lib/figures.js';

const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms).toISOString();
/** A job created at `created` ms that walked pending → in_queue → running → `end` at `finished` ms. */
function job(created: number, finished: number | undefined, end = 'done'): SandboxJob {
  const history = [{ status: 'pending', at: at(created) }, { status: 'in_queue', at: at(created + 80) }, { status: 'running', at: at(created + 120) }];
  if (finished !== undefined) history.push({ status: end, at: at(finished) });
  return { kind: 'ai_short', id: `j${created}`, status: history.at(-1)!.status, created_at: at(created), history };
}

describe('median and summaries', () => {
  test.each([
    [[3, 1, 2], 2],
    [[4, 1, 3, 2], 2.5],
    [[5], 5],
    [[], NaN],
    [[NaN, 7, Infinity], 7],
  ])('median of %j is %d', (values, expected) => expect(median(values)).toBe(expected));

  test('a summary gives min, median and max of the runs that have a value', () => {
    expect(summarise([1.3, 1.1, NaN, 1.2])).toEqual({ min: 1.1, median: 1.2, max: 1.3, runs: 3 });
    expect(summarise([]).runs).toBe(0);
  });
});

describe('requests counted by the sandbox', () => {
  test.each([
    ['POST /api/ai_shorts/', 'api'],
    ['GET /api/lipsyncs_v2/{id}/', 'api'],
    ['GET /sse/text/{id}/', 'api'],
    ['GET /cdn/{path}', 'downloads'],
    ['GET /media/{path}', 'downloads'],
    ['GET /__sandbox/stats', 'introspection'],
    ['GET /favicon.ico', 'other'],
  ])('%s counts as %s', (route, kind) => expect(routeClass(route)).toBe(kind));

  test('a run\'s requests are the difference between two snapshots, leaving out the bench\'s own reads', () => {
    const before = { requests: { 'GET /__sandbox/stats': 1, 'POST /api/ai_shorts/': 5 } };
    const after = { requests: { 'GET /__sandbox/stats': 2, 'POST /api/ai_shorts/': 15, 'GET /api/ai_shorts/': 3, 'GET /cdn/{path}': 10 } };
    expect(requestCounts(before, after)).toEqual({
      api: 13, downloads: 10, other: 0, byRoute: { 'POST /api/ai_shorts/': 10, 'GET /api/ai_shorts/': 3, 'GET /cdn/{path}': 10 },
    });
  });

  test('a fresh sandbox has no snapshot before: every count is the run\'s', () => {
    expect(requestCounts(undefined, { requests: { 'POST /api/ai_shorts/': 4 } }).api).toBe(4);
  });
});

describe('service timing: each job\'s life and the ideal makespan', () => {
  test('the ideal is ceil(jobs ÷ capacity) slot cycles of the median life, from creation to the final status', () => {
    // Lives 1,100, 1,125, 1,125, 1,200 and 1,125 ms: the median is 1,125.
    const jobs = [job(0, 1100), job(10, 1135), job(1100, 2225), job(1135, 2335), job(2225, 3350)];
    expect(serviceTiming(jobs, 2)).toEqual({
      jobs: 5, unfinished: 0, failed: 0, lifeMs: 1125, idealMs: 3 * 1125, firstCreatedMs: Date.parse(at(0)), lastFinishedMs: Date.parse(at(3350)),
    });
  });

  test('failed and rejected jobs have a life; a job still running has none and is counted unfinished', () => {
    const timing = serviceTiming([job(0, 1000, 'failed'), job(0, 2000, 'rejected'), job(0, undefined)], 64);
    expect(timing).toMatchObject({ jobs: 3, unfinished: 1, failed: 2, lifeMs: 1500, idealMs: 1500, lastFinishedMs: Date.parse(at(2000)) });
  });
});
