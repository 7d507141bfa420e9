import { describe, expect, test } from 'vitest';
import { median, ProgressTally, type JobFacts, type PlanShape } from '../../../src/report/progress/tally.js';
import type { JobStatus } from '../../../src/state/index.js';

const S = 1000;
const NOW = 1_000_000;

/** A step `a` of `n` jobs (kind ai_short), and their facts from `statuses`. */
function stepOf(statuses: [JobStatus | null, number | null, number | null][], kindLimit?: number) {
  const plan: PlanShape = {
    steps: [{ id: 'a', kind: 'ai_short' }],
    jobs: statuses.map((_, i) => ({ key: `a:${i}`, step: 'a', label: `a-${i}` })),
    kindConcurrency: kindLimit === undefined ? {} : { ai_short: kindLimit },
  };
  const rows: Omit<JobFacts, 'step'>[] = statuses.flatMap(([status, submittedAt, finishedAt], i) =>
    status === null ? [] : [{ key: `a:${i}`, status, creditsUsed: status === 'downloaded' ? 5 : null, creditsPrior: 0, submittedAt, finishedAt }],
  );
  return { plan, rows };
}

const done = (seconds: number): [JobStatus, number, number] => ['downloaded', NOW - 1000 * S, NOW - 1000 * S + seconds * S];
const running = (forSeconds: number): [JobStatus, number, null] => ['running', NOW - forSeconds * S, null];
const planned: [null, null, null] = [null, null, null];

describe('time left of a step: median duration × waves of remaining jobs, less the wave under way', () => {
  test.each([
    ['nothing finished yet: no estimate', [running(0), planned, planned], 4, undefined, null],
    ['one finished in 10 s, 3 remaining at concurrency 2: 2 waves', [done(10), running(0), planned, planned], 2, undefined, 20 * S],
    ['the kind allows 1 at a time: 3 waves', [done(10), running(0), planned, planned], 4, 1, 30 * S],
    ['the median, not the mean: a stuck job does not swing it', [done(10), done(20), done(300), running(0)], 4, undefined, 20 * S],
    ['the wave in flight for 4 s of a 20 s median: 16 s left', [done(20), running(4)], 4, undefined, 16 * S],
    ['a job in flight past the median: never below zero', [done(20), running(50)], 4, undefined, 0],
    ['nothing left to make: 0', [done(10), done(12)], 4, undefined, 0],
  ])('%s', (_, statuses, concurrency, kindLimit, eta) => {
    const { plan, rows } = stepOf(statuses as [JobStatus | null, number | null, number | null][], kindLimit);
    const [step] = new ProgressTally(plan, concurrency, rows).steps(NOW);
    expect(step!.etaMs).toBe(eta);
  });
});

describe('the tally', () => {
  const plan: PlanShape = {
    steps: [{ id: 'shorts', kind: 'ai_short' }, { id: 'clones', kind: 'ad_clone' }],
    jobs: [
      { key: 's1', step: 'shorts', label: 'short-1' },
      { key: 's2', step: 'shorts', label: 'short-2' },
      { key: 'c1', step: 'clones', label: 'clone-de' },
    ],
    kindConcurrency: {},
  };

  test('counts start from the state database and follow the events; credits count only what is settled', () => {
    const tally = new ProgressTally(plan, 4, [{ key: 's1', status: 'downloaded', creditsUsed: 5, creditsPrior: 0, submittedAt: NOW - 10 * S, finishedAt: NOW - 5 * S }]);
    tally.update({ key: 's2', status: 'submitted', submittedAt: NOW - S });
    tally.update({ key: 'c1', status: 'failed', creditsUsed: 0, creditsPrior: 2 });
    const steps = tally.steps(NOW);
    expect(steps.map((s) => [s.id, s.counts, s.settled, s.jobs, s.credits.known])).toEqual([
      ['shorts', { submitted: 1, done: 1 }, 1, 2, 5],
      ['clones', { failed: 1 }, 1, 1, 2],
    ]);
    const total = tally.total(steps);
    expect([total.jobs, total.settled, total.counts, total.credits]).toEqual([3, 2, { submitted: 1, done: 1, failed: 1 }, { known: 7, unknownJobs: 0, jobs: 2 }]);
  });

  test('a finished job whose cost the service did not report counts as unknown, never 0', () => {
    const tally = new ProgressTally(plan, 4, [{ key: 'c1', status: 'downloaded', creditsUsed: null, creditsPrior: 0, submittedAt: 0, finishedAt: 1 }]);
    expect(tally.steps(NOW)[1]!.credits).toEqual({ known: 0, unknownJobs: 1, jobs: 1 });
  });

  test('the total is the longer of the steps and the work over the concurrency; from the steps with observations, a lower bound while another has none', () => {
    const empty = new ProgressTally(plan, 1, []);
    expect(empty.total(empty.steps(NOW))).toMatchObject({ etaMs: null, etaAtLeast: false });
    const tally = new ProgressTally(plan, 1, [{ key: 's1', status: 'downloaded', creditsUsed: 5, creditsPrior: 0, submittedAt: 0, finishedAt: 10 * S }]);
    // Shorts observed (s2 left, 10 s); clones not yet: at least 10 s.
    expect(tally.total(tally.steps(NOW))).toMatchObject({ etaMs: 10 * S, etaAtLeast: true });
    tally.update({ key: 'c1', status: 'downloaded', submittedAt: 0, finishedAt: 30 * S });
    // Left: s2 (10 s) alone, at concurrency 1.
    expect(tally.total(tally.steps(NOW))).toMatchObject({ etaMs: 10 * S, etaAtLeast: false });
  });

  test('median', () => {
    expect([median([]), median([3]), median([4, 1, 3]), median([1, 2, 3, 10])]).toEqual([null, 3, 3, 2.5]);
  });
});
