import {
  BudgetExceededError,
  InsufficientCreditsError,
  InterruptedError,
  JobsFailedError,
  LockedError,
  ReelpipeError,
  UnfinishedError,
} from '../errors.js';
import { formatCredits } from '../report/summary.js';
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
    // Exit 75, not 4: another run holds this manifest now; rerunning at once would only be refused.
    case 'lock-lost':
      return new LockedError(`${message}; this run stopped at once, its work is recorded and the other run carries on`);
    case 'auth':
      return new ReelpipeError('API_UNAUTHORIZED', `the service refused the credentials; nothing more was submitted: ${message}`);
    case 'credits':
      return new InsufficientCreditsError(`the account ran out of credits; submitting stopped: ${message}`);
    case 'budget':
      return new BudgetExceededError(budgetMessage(result, message));
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

/**
 * The budget stop, told truthfully: what the ledger counts as spent against the cap, and, when a
 * job's real cost (known only once paid) passed its estimate and pushed spend over the cap, that
 * plainly, with the jobs that did it.
 */
export function budgetMessage(result: RunResult, why: string): string {
  const { spent, cap, overruns } = result.credits;
  const head = `the credit cap stopped submitting; spent ${formatCredits(spent)} of cap ${formatCredits(cap ?? 0)}`;
  if (cap === null || spent <= cap + 1e-9) return `${head}: ${why}`;
  const culprits = overruns.map((o) => `${o.key} cost ${formatCredits(o.used)} (${formatCredits(o.reserved)} reserved)`).join(', ');
  return (
    `${head} — spend went PAST the cap by ${formatCredits(Math.round((spent - cap) * 100) / 100)}` +
    (culprits ? ` because real costs exceeded their estimates: ${culprits}` : '') +
    `; a job's real cost is known only once it is paid. ${why}`
  );
}
