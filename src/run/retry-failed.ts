import { speaksOfCreditShortage } from '../api/index.js';
import type { JobRow } from '../state/index.js';
import { adapterFor } from './adapters/index.js';
import { announce } from './announce.js';
import type { RunContext } from './run-context.js';
import { stopForAccount } from './submit/submit-job.js';

/**
 * Automatic retries (`retries: N` at the top of the manifest or on a step, `--retries N` over
 * both): a job whose remote job the service reported `failed` in this run — or an HTML ad job some
 * of whose ads failed (`partly_failed`) — is planned again (StateStore.retryInRun: its failed
 * attempt's charge is lapsed `retried` and stays counted, the attempt marked as retried by this
 * run) and resubmitted as any planned job is: reserving under the budget, as a new remote job,
 * asking only for the failed items of a job of items (submit/items-to-send.ts).
 *
 * "Within the run" is one `run` (or `retry`) invocation: at most N automatic retries per job per
 * invocation, counted from the state (the job's attempts this run retried), never from memory. A
 * killed run resumed is a new invocation, so a job may be retried N more times there — each
 * retry answers a failure that invocation saw itself. A job found failed when the run starts
 * failed in an earlier run and is left to `reelpipe retry`.
 *
 * Default 0: a retry may cost money (the service charges a failed job what it reports), so it
 * is the operator's choice.
 */

/** What became of a job the service failed: planned again here (`retry`), or left as it is. */
export type AfterFailure = 'retry' | 'stay';

/**
 * Called once a job's remote end is recorded in this run as `failed` or `partly_failed` (any
 * other status is left as it is). Decides by the rules below, first that applies, and when the
 * answer is `retry` the job is already planned again.
 */
export async function afterFailure(ctx: RunContext, key: string): Promise<AfterFailure> {
  const row = await ctx.store.job(key);
  if (!row) return 'stay';
  // Never a rejection (a 400 at submission, or the service's review) nor a job in doubt: the same
  // request would be refused again — the fix is the operator's — and a job in doubt may exist
  // and be paid for already (it has its own path: reconcile, or a person decides).
  if (row.status !== 'failed' && row.status !== 'partly_failed') return 'stay';
  // The account is short of credits: every further request would fail the same way, so nothing
  // more is submitted (exit 3), as when a creation is refused for credits (submit-errors.ts).
  if (row.failedReason !== null && speaksOfCreditShortage(row.failedReason)) {
    stopForAccount(ctx, row, { reason: 'credits', message: `${ctx.planned.get(key)?.label ?? key} failed: ${row.failedReason}` });
    return 'stay';
  }
  const limit = ctx.retriesOf(row.step);
  if (limit === 0 || !remadeByRetry(ctx, row)) return 'stay';
  // After a stop (the budget, a signal, --halt-after, the account) nothing more is sent in this
  // run: the failure stays for `reelpipe retry`, rather than a job planned again for later.
  if (!ctx.stop.submitting) return 'stay';
  const used = await ctx.store.retriesInRun(key);
  if (used >= limit) return 'stay';
  const why = row.failedReason ?? (row.status === 'partly_failed' ? 'some of its items failed' : 'no reason given');
  // Planned again only from where it was read: whatever moved it since is newer than this decision.
  const again = await ctx.store.retryInRun(key, { retry: used + 1, of: limit });
  if (!again) return 'stay';
  announce(ctx, again, `retry ${used + 1} of ${limit} after: ${why}`);
  return 'retry';
}

/**
 * Whether resubmitting makes a new remote job whose end the run can read. Why not otherwise: a
 * kind that cannot be read "failed" on the run's side (its remote job may exist, finished and
 * paid for), so resending it is resending blindly; a custom template render keeps its preview's
 * id, so a retry would make no new remote job of its own (and its charges would mix).
 */
function remadeByRetry(ctx: RunContext, row: JobRow): boolean {
  const planned = ctx.planned.get(row.key);
  const adapter = adapterFor(row.kind, planned?.mode);
  return adapter.mode === 'tracked' && adapter.read !== undefined && planned?.mode !== 'render';
}
