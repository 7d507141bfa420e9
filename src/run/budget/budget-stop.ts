import { formatCredits } from '../../util/format.js';
import type { RunContext } from '../run-context.js';

/** Stops all submitting for the budget (first reason wins), recording why. */
export function stopForBudget(ctx: RunContext, key: string, message: string): void {
  if (ctx.stop.stop('budget', message)) {
    ctx.store.event('budget:stop', key, { message, cap: ctx.ledger.cap, spent: ctx.ledger.spent });
    ctx.events.emit('run:stopping', { reason: 'budget', message });
  }
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
  const cap = formatCredits(ctx.ledger.cap ?? 0);
  stopForBudget(
    ctx,
    key,
    overrun
      ? `${key} cost ${formatCredits(overrun.used)} credits, more than the ${formatCredits(overrun.reserved)} reserved for it; ` +
          `spent ${formatCredits(ctx.ledger.spent)} and reserved ${formatCredits(ctx.ledger.reservedTotal)} pass the cap of ${cap}`
      : `spent ${formatCredits(ctx.ledger.spent)} and reserved ${formatCredits(ctx.ledger.reservedTotal)} pass the cap of ${cap}`,
  );
}
