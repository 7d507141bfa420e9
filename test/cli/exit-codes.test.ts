import { describe, expect, test } from 'vitest';
import {
  ApiBadRequestError, ApiConnectionError, ApiInDoubtError, ApiInvalidResponseError, ApiStatusError,
  ApiTimeoutError,
} from '../../src/api/errors.js';
import { EXIT, exitCodeFor, exitCodeForOutcome } from '../../src/cli/exit-codes.js';
import {
  BudgetExceededError, DownloadError, InsufficientCreditsError, InterruptedError, InvalidInputError,
  JobsFailedError, JobsInDoubtError, LocalFaultError, LockedError, MissingConfigError, StateError, UnfinishedError, UsageError,
} from '../../src/errors.js';

describe('exit codes: what a cron wrapper sees for each kind of outcome', () => {
  test.each([
    ['usage', new UsageError('bad flag'), 2],
    ['invalid manifest', new InvalidInputError([{ message: 'x' }]), 2],
    ['missing credential', new MissingConfigError('REELPIPE_API_KEY', 'needed'), 2],
    ['a field error from the service', ApiStatusError.from('op', 400, { f: ['bad'] }), 2],
    ['a rejected key', ApiStatusError.from('op', 401, { detail: 'no' }), 2],
    ['a forbidden account', ApiStatusError.from('op', 403, { detail: 'no' }), 2],
    ['an unknown id', ApiStatusError.from('op', 404, { detail: 'no' }), 2],
    ['any other final 4xx', ApiStatusError.from('op', 422, ['nope']), 2],
    ['some jobs failed', new JobsFailedError('2 failed'), 1],
    ['budget would be exceeded', new BudgetExceededError('over'), 3],
    ['credits ran out', new InsufficientCreditsError('empty'), 3],
    ['unfinished work', new UnfinishedError('left'), 4],
    ['jobs in doubt that need a decision', new JobsInDoubtError('decide'), 5],
    ['a full disk under the state', new LocalFaultError('SQLITE_FULL'), 74],
    ['interrupted', new InterruptedError('SIGTERM'), 4],
    ['rate limited past retries', ApiStatusError.from('op', 429, {}), 4],
    ['server error past retries', ApiStatusError.from('op', 502, {}), 4],
    ['no connection', new ApiConnectionError('op', 'refused', false), 4],
    ['a timeout', new ApiTimeoutError('op', 'slow', undefined, 'headers'), 4],
    ['an in-doubt creation', new ApiInDoubtError('op', 'reset'), 4],
    ['a failed download', new DownloadError('cut'), 4],
    ['a locked state database', new LockedError('held'), 75],
    ['an unexpected answer shape', new ApiInvalidResponseError('op', 'status: missing'), 70],
    ['a corrupt state database', new StateError('bad'), 70],
    ['an error that is not ours', new TypeError('bug'), 70],
  ])('%s exits %i', (_what, error, code) => {
    expect(exitCodeFor(error)).toBe(code);
  });

  test('the subclass the factory picks carries the code the table maps', () => {
    expect(ApiStatusError.from('op', 400, {})).toBeInstanceOf(ApiBadRequestError);
    expect(Object.values(EXIT).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 70, 74, 75]);
  });
});

describe('the exit code a past run ended with, from the outcome its row recorded (reelpipe runs)', () => {
  test.each([
    ['OK', 0],
    ['JOBS_FAILED', 1],
    ['INVALID_INPUT', 2],
    ['BUDGET_EXCEEDED', 3],
    ['INTERRUPTED', 4],
    ['JOBS_IN_DOUBT', 5],
    ['INTERNAL', 70],
    ['LOCAL_FAULT', 74],
    ['LOCKED', 75],
    // A run with no end yet, or a code from a newer reelpipe: unknown, never guessed.
    [null, null],
    ['SOMETHING_NEW', null],
    ['toString', null],
  ])('%s → %s', (outcome, code) => {
    expect(exitCodeForOutcome(outcome)).toBe(code);
  });

  test('the same code a live error of that outcome exits with', () => {
    for (const error of [new JobsFailedError('x'), new LockedError('x'), new UnfinishedError('x'), new LocalFaultError('x')]) {
      expect(exitCodeForOutcome(error.code)).toBe(exitCodeFor(error));
    }
  });
});
