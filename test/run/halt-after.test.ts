import { describe, expect, test } from 'vitest';
import { watchHaltAfter } from '../../src/run/halt-after.js';
import { StopState } from '../../src/run/run-context.js';
import { RunEvents } from '../../src/run/run-events.js';
import type { JobStatus } from '../../src/state/index.js';

const status = (events: RunEvents, key: string, to: JobStatus) => events.emit('job:status', { key, step: 's', kind: 'ai_short', status: to });

describe('--halt-after', () => {
  test('the Nth job failed or rejected in this run stops submitting, once, and says why', () => {
    const events = new RunEvents();
    const stop = new StopState();
    const said: string[] = [];
    events.on('run:stopping', (e) => said.push(`${e.reason}: ${e.message}`));
    watchHaltAfter(events, stop, 2);
    status(events, 'a', 'failed');
    expect(stop.submitting).toBe(true);
    status(events, 'b', 'rejected');
    status(events, 'c', 'failed');
    expect([stop.reason, stop.submitting, stop.halted]).toEqual(['halt-after', false, false]);
    expect(said).toEqual(['halt-after: --halt-after 2: 2 jobs failed in this run, so submitting stopped (jobs already sent are finished)']);
  });

  test.each(['submitted', 'running', 'done', 'downloaded', 'in_doubt', 'planned'] as const)('a job %s is no failure', (to) => {
    const events = new RunEvents();
    const stop = new StopState();
    watchHaltAfter(events, stop, 1);
    status(events, 'a', to);
    expect(stop.reason).toBeNull();
  });

  test('a job counts once, however often it is announced', () => {
    const events = new RunEvents();
    const stop = new StopState();
    watchHaltAfter(events, stop, 2);
    status(events, 'a', 'failed');
    status(events, 'a', 'failed');
    expect(stop.reason).toBeNull();
  });

  test('without a limit nothing is watched; unsubscribed, nothing more is counted', () => {
    const events = new RunEvents();
    const stop = new StopState();
    watchHaltAfter(events, stop, null);
    status(events, 'a', 'failed');
    const off = watchHaltAfter(events, stop, 1);
    off();
    status(events, 'b', 'failed');
    expect(stop.reason).toBeNull();
  });

  test('a later interruption still halts everything (it outranks a halt-after stop)', () => {
    const events = new RunEvents();
    const stop = new StopState();
    watchHaltAfter(events, stop, 1);
    status(events, 'a', 'failed');
    expect(stop.stop('interrupted', 'SIGINT received')).toBe(true);
    expect(stop.halted).toBe(true);
  });
});
