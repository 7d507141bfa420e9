import { describe, expect, test } from 'vitest';
import { resumeText } from '../../../src/report/progress/lines.js';
import type { PreviousRun } from '../../../src/run/run-events.js';

const COUNTS = { done: 4, submitted: 1, running: 1, 'in doubt': 1, 'not submitted': 2, changed: 1 };
const died: PreviousRun = { runId: 11, state: 'died', outcome: null };
const ended = (outcome: string): PreviousRun => ({ runId: 11, state: 'finished', outcome });

describe('what a run says it starts from', () => {
  test.each([
    ['the run before died: it resumes it', died, COUNTS, 'resumes run 11, which died (no end recorded): 4 done, 2 at the service, 1 in doubt, 3 to send'],
    ['died with every job done: said all the same', died, { done: 3 }, 'resumes run 11, which died (no end recorded): 3 done, 0 at the service, 0 in doubt, 0 to send'],
    ['stopped early', ended('INTERRUPTED'), COUNTS, 'resumes run 11, which ended INTERRUPTED: 4 done, 2 at the service, 1 in doubt, 3 to send'],
    [
      'files to download and jobs failed or refused are said after', ended('BUDGET_EXCEEDED'), { done: 1, finished: 2, failed: 1, rejected: 1, 'not submitted': 1 },
      'resumes run 11, which ended BUDGET_EXCEEDED: 1 done, 0 at the service, 0 in doubt, 1 to send, 2 to download, 1 failed, 1 rejected',
    ],
    ['the run before ended OK: nothing to say', ended('OK'), COUNTS, null],
    ['it ended with jobs failed (they wait for retry): nothing to say', ended('JOBS_FAILED'), { done: 3, failed: 1 }, null],
    ['the same when `retry` has set its failed jobs to be sent again', ended('JOBS_FAILED'), { done: 3, 'not submitted': 1 }, null],
    ['it ended with an error but left no job open: nothing to say', ended('INTERRUPTED'), { done: 3 }, null],
    ['it ended with jobs in doubt', ended('JOBS_IN_DOUBT'), { done: 3, 'in doubt': 1 }, 'resumes run 11, which ended JOBS_IN_DOUBT: 3 done, 0 at the service, 1 in doubt, 0 to send'],
    ['it is still running (this run waits for its lock): nothing to say', { runId: 11, state: 'running', outcome: null } as const, COUNTS, null],
    ['no run before', null, COUNTS, null],
  ])('%s', (_, previous, counts, expected) => {
    expect(resumeText(previous, counts)).toBe(expected);
  });
});
