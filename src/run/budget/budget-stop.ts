import { formatCredits } from '../../util/format.js';
import { noteSoon } from '../local-fault-stop.js';
import type { RunContext } from '../run-context.js';

/** Stops all submitting for the budget (first reason wins), recording why. */
export function stopForBudget(ctx: RunContext, key: string, message: string): void {
  if (ctx.stop.stop('budget', message)) {
    noteSoon(ctx, 'budget:stop', key, { message, cap: ctx.ledger.cap, spent: ctx.ledger.spent });
    ctx.events.emit('run:stopping', { reason: 'budget', message });
  }
}

/** `clone-es (clones:f1410ed02a5d)`: a job as the summary names it, its label beside its key. */
export const namedJob = (ctx: Pick<RunContext, 'planned'>, key: string): string => `${ctx.planned.get(key)?.label ?? key} (${key})`;

/**
 * The ledger's figures when the stop happened, in the summary's words: `counted` against the cap
 * (a cost not reported counts at its high estimate) and `held` for jobs in flight (at their high
 * estimates). Said as of that moment: the jobs in flight settle after it, so the summary's final
 * figures may differ.
 */
export function atThatMoment(ctx: Pick<RunContext, 'ledger'>): string {
  return `at that moment ${formatCredits(ctx.ledger.spent)} counted against the cap of ${formatCredits(ctx.ledger.cap ?? 0)} and ${formatCredits(ctx.ledger.reservedTotal)} held for jobs in flight`;
}

/**
 * A job ended: its cost (null: not reported) settles in the ledger. Policy: if a real cost above
 * its estimate pushed spent + reserved past the cap, submitting stops at once — nothing more is
 * sent, not even jobs already holding a reservation (see submit-job).
 */
export function settleCost(ctx: RunContext, key: string, creditsUsed: number | null): void {
  ctx.ledger.settle(key, creditsUsed);
  if (!ctx.ledger.overCap) return;
  const overrun = ctx.ledger.overruns.find((o) => o.key === key);
  const charged = overrun ? `${namedJob(ctx, key)} was charged ${formatCredits(overrun.used)}, above the ${formatCredits(overrun.reserved)} held for it (its high estimate); ` : '';
  stopForBudget(ctx, key, `${charged}${atThatMoment(ctx)}: past the cap`);
}
