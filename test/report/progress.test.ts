import { describe, expect, test } from 'vitest';
import { REDRAW_MIN_MS, startProgress, STATUS_EVERY_MS, type Progress, type ProgressOptions } from '../../src/report/progress.js';
import type { PlanShape } from '../../src/report/progress/tally.js';
import { RunEvents, type RunStarted } from '../../src/run/run-events.js';
import { ManualClock } from '../../src/util/clock.js';
import { REDRAW as CURSOR_UP, replayTerminal } from '../helpers/terminal-screen.js';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}(Z|[+-]\d\d:\d\d) {2}/;

const PLAN: PlanShape = {
  steps: [{ id: 'shorts', kind: 'ai_short' }, { id: 'clones', kind: 'ad_clone' }],
  jobs: [
    { key: 'shorts:1', step: 'shorts', label: 'short-TR1' },
    { key: 'shorts:2', step: 'shorts', label: 'short-TR2' },
    { key: 'clones:1', step: 'clones', label: 'clone-de' },
  ],
  kindConcurrency: {},
};

const STARTED: RunStarted = {
  runId: 12, manifest: '/p/m.yaml', statePath: '/p/state/reelpipe.db', logFile: '/p/state/logs/12.ndjson', jobs: 3, steps: 2,
  expectedCredits: 100, unknownJobs: 0, maxCredits: 500, concurrency: 2, sandbox: false, previous: null,
};

/** Lets the sleepers the clock woke run their continuations. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

function open(mode: ProgressOptions['mode'], extra: Partial<ProgressOptions> = {}) {
  const clock = new ManualClock(Date.UTC(2026, 10, 23, 2, 0, 0));
  const events = new RunEvents();
  let out = '';
  const progress = startProgress(events, { mode, write: (text) => (out += text), version: '9.9.9', clock, ...extra });
  events.emit('run:started', STARTED);
  progress.begin(PLAN, []);
  return { clock, events, progress, output: () => out };
}

describe('plain progress (no terminal)', () => {
  test('the header, then every event as one line starting with its ISO time; not one escape code', () => {
    const { events, progress, output } = open('plain');
    events.emit('job:status', { key: 'shorts:1', step: 'shorts', kind: 'ai_short', status: 'submitted', remoteId: 'r-1', submittedAt: 0 });
    events.emit('job:status', { key: 'clones:1', step: 'clones', kind: 'ad_clone', status: 'rejected', detail: 'HTTP 500: <html>\n<body><h1>Bad\nGateway</h1></body>\n</html>' });
    events.emit('run:stopping', { reason: 'budget', message: 'the cap\nstopped it' });
    progress.close();
    const lines = output().trimEnd().split('\n');
    expect(lines[0]).toBe(
      'reelpipe 9.9.9 · run 12 · started 2026-11-23T02:00:00.000Z · manifest /p/m.yaml · state /p/state/reelpipe.db · log /p/state/logs/12.ndjson · ' +
        'plan: 3 jobs in 2 steps, 100 credits expected, cap 500, concurrency 2',
    );
    expect(lines.slice(1).map((l) => l.replace(ISO, '<t>  '))).toEqual([
      '<t>  submitted     short-TR1  shorts:1  r-1',
      '<t>  REJECTED      clone-de  clones:1  HTTP 500: Bad Gateway',
      '<t>  stopping: the cap stopped it',
    ]);
    expect(output()).not.toContain('\x1b');
  });

  test('a stop caused by a signal names it in parentheses: "stopping" is said once', () => {
    const { events, progress, output } = open('plain');
    events.emit('run:stopping', { reason: 'interrupted', cause: 'SIGTERM', message: 'no new jobs are sent; requests in flight settle first' });
    progress.close();
    expect(output().trimEnd().split('\n').at(-1)!.replace(ISO, '<t>  ')).toBe('<t>  stopping (SIGTERM): no new jobs are sent; requests in flight settle first');
  });

  test('a status line every interval, with counts, credits and time left; none after close', async () => {
    const { clock, events, progress, output } = open('plain', { statusEveryMs: 5000 });
    events.emit('job:status', { key: 'shorts:1', step: 'shorts', kind: 'ai_short', status: 'downloaded', creditsUsed: 5, creditsPrior: 0, submittedAt: clock.now(), finishedAt: clock.now() + 4000 });
    clock.advance(4999);
    await settle();
    expect(output()).not.toContain('progress:');
    clock.advance(1);
    await settle();
    const status = output().trimEnd().split('\n').at(-1)!;
    // Time left from the step with a finished job (shorts: 4 s), at least: clones has none finished yet.
    expect(status.replace(ISO, '<t>  ')).toBe('<t>  progress: 1/3  ETA ≥4s · 5s elapsed · 5 credits · 2 not submitted, 1 done — shorts 1/2, clones 0/1');
    progress.close();
    clock.advance(60_000);
    await settle();
    expect(output().split('progress:')).toHaveLength(2);
  });

  test('the status line comes every 30 s by default', async () => {
    const { clock, progress, output } = open('plain');
    clock.advance(STATUS_EVERY_MS);
    await settle();
    expect(output()).toContain('progress: 0/3');
    progress.close();
  });
});

describe('live progress (a terminal)', () => {
  test('a block per step and a total, redrawn in place; what needs a person prints above it', async () => {
    const { clock, events, progress, output } = open('live', { size: () => ({ columns: 120, rows: 40 }) });
    clock.advance(REDRAW_MIN_MS);
    await settle();
    events.emit('job:status', { key: 'shorts:1', step: 'shorts', kind: 'ai_short', status: 'submitted', submittedAt: clock.now() });
    clock.advance(REDRAW_MIN_MS);
    await settle();
    events.emit('job:status', { key: 'clones:1', step: 'clones', kind: 'ad_clone', status: 'failed', detail: 'Render\nfailed', creditsUsed: 0, creditsPrior: 0 });
    progress.close();
    // Drawn, redrawn for the submission, for the failure (with its line above), and once more at the end.
    expect(output().match(CURSOR_UP)).toHaveLength(3);
    const screen = replayTerminal(output(), 120);
    expect(screen.unknown).toEqual([]);
    const rows = screen.rows.filter((r) => r !== '');
    // The header is longer than the terminal: above the block, it may wrap.
    expect(rows[0]! + rows[1]!).toMatch(/^reelpipe 9\.9\.9 · run 12 · started .* concurrency 2$/);
    expect(rows.slice(2)).toEqual([
      '02:00:00  FAILED        clone-de  clones:1  Render failed',
      'shorts  ░░░░░░░░░░  0/2  ETA — · 0 credits · 1 not submitted, 1 submitted',
      'clones  ██████████  1/1  0 credits · 1 failed',
      'total   ███░░░░░░░  1/3  ETA — · 0s elapsed · 0 credits · 1 not submitted, 1 submitted, 1 failed',
    ]);
  });

  test('status changes in a burst make one redraw, not one each', async () => {
    const { clock, events, progress, output } = open('live');
    clock.advance(REDRAW_MIN_MS);
    await settle();
    const before = output().match(CURSOR_UP)?.length ?? 0;
    for (const key of ['shorts:1', 'shorts:2']) events.emit('job:status', { key, step: 'shorts', kind: 'ai_short', status: 'submitted' });
    events.emit('job:status', { key: 'clones:1', step: 'clones', kind: 'ad_clone', status: 'submitted' });
    clock.advance(REDRAW_MIN_MS);
    await settle();
    expect(before).toBe(0);
    expect(output().match(CURSOR_UP)).toHaveLength(1);
    progress.close();
  });

  test('lines are cut to the width and the block to the height, so a redraw always lands on it', () => {
    const many: PlanShape = {
      steps: Array.from({ length: 15 }, (_, i) => ({ id: `step-with-a-rather-long-name-${i}`, kind: 'ai_short' })),
      jobs: Array.from({ length: 15 }, (_, i) => ({ key: `k${i}`, step: `step-with-a-rather-long-name-${i}`, label: `label-${i}` })),
      kindConcurrency: {},
    };
    const { events, progress, output } = open('live', { size: () => ({ columns: 40, rows: 30 }) });
    progress.begin(many, []);
    events.emit('run:note', { message: 'a note' });
    progress.close();
    const screen = replayTerminal(output(), 40);
    const block = screen.rows.slice(screen.rows.indexOf(screen.rows.find((r) => r.endsWith('a note'))!) + 1).filter((r) => r !== '');
    // 9 steps, the other 6 summed on one line, and the total.
    expect(block).toHaveLength(11);
    expect(block[9]).toMatch(/^\+6 steps/);
    expect(block.every((row) => [...row].length <= 39)).toBe(true);
    const short = open('live', { size: () => ({ columns: 80, rows: 4 }) });
    short.progress.begin(many, []);
    short.progress.close();
    const rows = replayTerminal(short.output(), 80).rows.filter((r) => r !== '');
    // Three rows of four: the bottom of the block, the total last.
    expect(rows.slice(-3).map((r) => r.split(' ')[0])).toEqual(['step-with-a-rather-long…', '+6', 'total']);
    expect(rows.filter((r) => r.startsWith('step-'))).toHaveLength(1);
  });
});

describe('jobs in doubt', () => {
  const row = (key: string, status: 'planned' | 'in_doubt') => ({ key, status, creditsUsed: null, creditsPrior: 0, submittedAt: null, finishedAt: null });
  const inDoubt = (key: string, detail: string) => ({ key, step: 'shorts', kind: 'ai_short', status: 'in_doubt' as const, detail });
  const said = (output: string) => output.trimEnd().split('\n').slice(1).map((l) => l.replace(ISO, '<t>  '));

  test('a job that falls in doubt and is then held there is one line in a cron log, not two', () => {
    const { events, progress, output } = open('plain');
    events.emit('job:status', { key: 'shorts:1', step: 'shorts', kind: 'ai_short', status: 'submitting' });
    events.emit('job:status', inDoubt('shorts:1', 'no answer after the request was sent'));
    events.emit('job:status', inDoubt('shorts:1', 'held in doubt: ai_short jobs cannot be listed'));
    progress.close();
    expect(said(output())).toEqual([
      '<t>  submitting    short-TR1  shorts:1',
      '<t>  IN DOUBT      short-TR1  shorts:1  no answer after the request was sent',
    ]);
  });

  test('on a terminal too, held in doubt again prints nothing above the block', () => {
    const { events, progress, output } = open('live', { size: () => ({ columns: 120, rows: 40 }) });
    events.emit('job:status', inDoubt('shorts:1', 'no answer after the request was sent'));
    events.emit('job:status', inDoubt('shorts:1', 'held in doubt: ai_short jobs cannot be listed'));
    progress.close();
    const rows = replayTerminal(output(), 120).rows;
    expect(rows.filter((r) => r.includes('IN DOUBT'))).toEqual(['02:00:00  IN DOUBT      short-TR1  shorts:1  no answer after the request was sent']);
  });

  test('a run that begins with jobs in doubt and still holds them at its end says so in one line, not one per job', () => {
    const { events, progress, output } = open('plain');
    progress.begin(PLAN, [row('shorts:1', 'in_doubt'), row('shorts:2', 'in_doubt'), row('clones:1', 'in_doubt')]);
    for (const key of ['shorts:1', 'shorts:2', 'clones:1']) events.emit('job:status', inDoubt(key, 'held in doubt: ai_short jobs cannot be listed'));
    // One of them is settled in this run: its change is a line of its own, and it is no longer held.
    events.emit('job:status', { key: 'clones:1', step: 'clones', kind: 'ad_clone', status: 'submitted', remoteId: 'r-9', detail: 'reconciled: found r-9' });
    progress.close();
    progress.close();
    expect(said(output())).toEqual([
      '<t>  submitted     clone-de  clones:1  r-9  reconciled: found r-9',
      '<t>  still in doubt from earlier runs: 2 jobs (reelpipe doubt /p/m.yaml lists them)',
    ]);
  });

  test('a run that settles every job it began with in doubt says nothing more at its end', () => {
    const { events, progress, output } = open('plain');
    progress.begin(PLAN, [row('shorts:1', 'in_doubt')]);
    events.emit('job:status', { key: 'shorts:1', step: 'shorts', kind: 'ai_short', status: 'planned', detail: 'reconciled: absent' });
    progress.close();
    expect(output()).not.toContain('still in doubt');
  });
});

describe('what the run resumes', () => {
  /** Plain progress of a run whose newest run before it has no end recorded (died, as far as its row says). */
  const afterDied = (start?: { joined: boolean }, pages: Parameters<Progress['found']>[1][] = []) => {
    const clock = new ManualClock(Date.UTC(2026, 10, 23, 2, 0, 0));
    const events = new RunEvents();
    let out = '';
    const progress = startProgress(events, { mode: 'plain', write: (text) => (out += text), version: '9.9.9', clock });
    events.emit('run:started', { ...STARTED, previous: { runId: 11, state: 'died', outcome: null } });
    for (const page of pages) progress.found(PLAN, page);
    progress.begin(PLAN, [], start);
    progress.close();
    return out.split('\n').slice(1).join('\n');
  };

  test('a run that took the manifest says the run it resumes, right after its header', () => {
    expect(afterDied()).toMatch(new RegExp(`${ISO.source}resumes run 11, which died \\(no end recorded\\): 0 done`));
  });

  test('the jobs it found a page at a time are counted as one: each page adds to the line', () => {
    const found = (key: string, status: 'downloaded' | 'in_doubt' | 'submitted') => ({ key, status, creditsUsed: null, creditsPrior: 0, submittedAt: 1, finishedAt: null });
    const said = afterDied(undefined, [[found('shorts:1', 'downloaded'), found('shorts:2', 'in_doubt')], [found('clones:1', 'submitted')]]);
    expect(said).toMatch(/resumes run 11, which died \(no end recorded\): 1 done, 1 at the service, 1 in doubt, 0 to send/);
  });

  test('a member that joined a live run says none: the run before its row is another member starting, not one that died', () => {
    expect(afterDied({ joined: true })).not.toContain('resumes');
  });
});
