import { BudgetExceededError } from '../errors.js';
import { formatCredits, plural } from './totals.js';
import type { Plan } from './types.js';

/**
 * The budget guard. The expected total is what is compared: low would let most runs overspend,
 * high would refuse plans that are fine on average. Jobs of unknown cost cannot be counted, so
 * the message names them: the real bill can be higher than any figure shown.
 */
export function assertWithinBudget(plan: Plan, maxCredits?: number): void {
  const max = maxCredits ?? plan.budget.maxCredits;
  if (max === null || max === undefined) return;
  const { credits } = plan.totals;
  // Nothing priced, nothing to compare: the table says every cost is unknown.
  if (credits === null || credits.expected <= max) return;
  throw new BudgetExceededError(
    `plan ${plan.name} expects ${formatCredits(credits.expected)} credits ` +
      `(low ${formatCredits(credits.low)}, high ${formatCredits(credits.high)}), over the budget of ${formatCredits(max)} ` +
      `by ${formatCredits(credits.expected - max)}${unknownNote(plan)}. ` +
      'Nothing was submitted; raise budget.max_credits or --max-credits, or plan fewer jobs.',
  );
}

/** `; 11 jobs of unknown cost not counted (product ×1, clones ×10)`, or nothing. */
export function unknownNote(plan: Plan): string {
  const unknown = plan.steps.filter((s) => s.unknownJobs > 0);
  if (unknown.length === 0) return '';
  const list = unknown.map((s) => `${s.id} ×${s.unknownJobs}`).join(', ');
  return `; ${plural(plan.totals.unknownJobs, 'job')} of unknown cost not counted (${list})`;
}
