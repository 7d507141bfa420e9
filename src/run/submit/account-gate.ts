import { AccountLimitError, gates, slotLifeMs, type Intent, type SlotLives, type Store } from '../../state/index.js';
import { ADAPTERS } from '../adapters/index.js';
import { namedJob, stopForBudget } from '../budget/budget-stop.js';
import type { RunContext } from '../run-context.js';

/**
 * The account's limits, as a run meets them (state/account-rules.ts). A run that starts under a
 * slot limit or a cap asks the account in each intent's transaction; a run started before any
 * limit was set asks nothing (limits set later hold from the next run). Refused:
 *   - for a slot: the job waits (its creating slot kept: no other job could go either) and asks
 *     again, sooner at first, at most every SLOT_WAIT_MAX_MS; the run's stop ends the wait;
 *   - for credits: the job is not sent, and the run stops submitting as for its own budget
 *     (exit 3), saying the account's cap refused it.
 */

/** The longest wait between two asks for a slot. */
const SLOT_WAIT_MAX_MS = 2_000;

/** How long a job in doubt of each kind keeps its account slot (slotLifeMs), every wait × `timeScale`. */
const livesAt = (timeScale: number): SlotLives =>
  Object.fromEntries(Object.entries(ADAPTERS).map(([kind, adapter]) => [kind, Math.max(1, Math.round(slotLifeMs(adapter.typicalSeconds) * timeScale))]));

/** How long a job in doubt of each kind keeps its account slot: ten times its kind's typical life, at least an hour. */
export const SLOT_LIVES: SlotLives = livesAt(1);

/**
 * What the run's intents ask the account (Intent.gate), or null when the account limits nothing as
 * the run starts. The slot lives of its own manifest's jobs are scaled by the run's time scale, as
 * every wait of the run is (a sandbox at speed 100 renders a job in a hundredth of its time);
 * other manifests' keep their real lives.
 */
export async function accountGateFor(store: Store, manifest: string, timeScale = 1): Promise<Intent['gate'] | null> {
  if (!gates(await store.account())) return null;
  return timeScale === 1 ? { lives: SLOT_LIVES } : { lives: SLOT_LIVES, own: { manifest, lives: livesAt(timeScale) } };
}

/** Runs already told that they wait for the account's slots (said once a run). */
const told = new WeakSet<RunContext>();

/**
 * Records the intent, asking the account when the run does: its attempt's id, or null when it
 * was not written (the account's cap refused it, or the run stopped while it waited for a slot).
 */
export async function intentWithin(ctx: RunContext, intent: Intent): Promise<number | null> {
  if (!ctx.account) return ctx.store.recordIntent(intent);
  for (let asked = 0; ; asked++) {
    try {
      return await ctx.store.recordIntent({ ...intent, gate: ctx.account });
    } catch (error) {
      if (!(error instanceof AccountLimitError)) throw error;
      if (error.limit === 'credits') {
        stopForBudget(ctx, intent.key, `${namedJob(ctx, intent.key)} was not submitted: ${error.message}`);
        return null;
      }
      if (!told.has(ctx)) {
        told.add(ctx);
        ctx.events.emit('run:note', { message: `${error.message}: jobs wait for a slot (reelpipe account show lists what holds them)` });
      }
      const wait = Math.min(SLOT_WAIT_MAX_MS, 100 * 2 ** Math.min(asked, 5)) * (0.5 + ctx.random() / 2);
      await ctx.clock.sleep(wait, ctx.stop.controller.signal).catch(() => undefined);
      if (ctx.stop.refusesReserved || ctx.ledger.overCap) return null;
    }
  }
}

