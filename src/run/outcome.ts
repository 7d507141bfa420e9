import {
  BudgetExceededError,
  InsufficientCreditsError,
  InterruptedError,
  JobsFailedError,
  ReelpipeError,
  UnfinishedError,
} from '../errors.js';
import type { RunResult } from './execute-plan.js';

/**
 * The error that ends a run, or undefined for exit 0. Order matters: an interruption or a
 * refused key explains everything after it; a budget or credits stop comes before "unfinished"
 * (the work left is the stop's consequence); failures are reported only when all else finished.
 */
export function runOutcome(result: RunResult, signal = 'a signal'): ReelpipeError | undefined {
  const message = result.stopMessage ?? '';
  switch (result.stop) {
    case 'interrupted':
      return new InterruptedError(signal);
    case 'auth':
      return new ReelpipeError('API_UNAUTHORIZED', `the service refused the credentials; nothing more was submitted: ${message}`);
    case 'credits':
      return new InsufficientCreditsError(`the account ran out of credits; submitting stopped: ${message}`);
    case 'budget':
      return new BudgetExceededError(`the credit cap stopped submitting; spent so far stays under it: ${message}`);
    case 'deadline':
      return new UnfinishedError(`${message}; jobs in flight are tracked by the next run`);
    default:
      break;
  }
  const unfinished = [...result.outcomes.values()].filter((o) => o === 'unfinished').length;
  if (result.heldInDoubt.length > 0 || unfinished > 0) {
    return new UnfinishedError(
      `${unfinished} job${unfinished === 1 ? '' : 's'} unfinished` +
        (result.heldInDoubt.length ? ` (${result.heldInDoubt.length} held in doubt)` : '') +
        '; run the same command again to resume',
    );
  }
  const failed = [...result.outcomes.values()].filter((o) => o === 'failed').length;
  if (failed > 0) return new JobsFailedError(`${failed} job${failed === 1 ? '' : 's'} failed; see the summary, then reelpipe retry`);
  return undefined;
}
