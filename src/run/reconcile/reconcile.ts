import { ApiRateLimitError, ApiStatusError } from '../../api/index.js';
import type { AttemptRow, JobRow } from '../../state/index.js';
import { confirmRemote, type Confirmation } from './confirm-remote.js';
import { adapterFor, type KindAdapter, type Resource } from '../adapters/index.js';
import { settleCost } from '../budget/budget-stop.js';
import { matchesIntent } from './match-intent.js';
import { callFor, type RunContext } from '../run-context.js';
import { announce } from '../announce.js';
import { endWrite } from '../track/record-end.js';
import { utcIso } from '../../util/time-format.js';

/**
 * How reconciling one in-doubt job came out:
 * - `found`: the job the intent created exists; it is tracked from here (never resubmitted);
 * - `absent`: it provably does not exist (or resending is harmless): back to planned;
 * - `wait`: not found yet, but too soon to call it absent (a slow request may still land);
 * - `held`: the kind cannot be searched (or its list is refused); held in doubt for the operator;
 * - `list-failed`: the list could not be read this time (the caller counts these, see drive-job).
 */
export type ReconcileResult = 'found' | 'absent' | 'wait' | 'held' | 'list-failed';


/**
 * Settles a job whose POST may or may not have created something. The intent's request and
 * time are the evidence: a listed job of the same kind, created within the intent's window
 * (allowing for clock skew), whose fields match what was sent, and whose id was never recorded
 * for any job (another row's, or this job's own earlier attempt before a `retry`).
 */
export async function reconcileJob(ctx: RunContext, job: JobRow): Promise<ReconcileResult> {
  const attempt = await ctx.store.lastAttempt(job.key);
  const adapter = adapterFor(job.kind, ctx.planned.get(job.key)?.mode);
  // The answer came and its id was kept, only handling it failed: no search, the id is the evidence.
  if (job.remoteId) return adoptRecorded(ctx, job, job.remoteId);
  // The service named the job this attempt made: its own delivery to the attempt's webhook
  // address, or the creation answer a run received after it could no longer record it (observed).
  if (attempt?.deliveredId) return adoptDelivered(ctx, job, attempt, adapter);
  if (adapter.reconcile === 'resend') return markAbsent(ctx, job, attempt?.id, 'the operation is idempotent: sent again');
  if (adapter.reconcile === 'none' || !adapter.listRecent || !attempt) {
    // Only where the service cannot be searched does the operator's word replace the evidence.
    if (ctx.resubmit.delete(job.key)) return markAbsent(ctx, job, attempt?.id, 'the operator chose --resubmit-in-doubt');
    return hold(ctx, job, adapter.reconcile);
  }
  const now = ctx.clock.now();
  const window = { after: utcIso(attempt.intentAt - ctx.options.clockSkewMs), before: utcIso(now + ctx.options.clockSkewMs) };
  let listed: Resource[];
  try {
    await ctx.limiter.acquire(ctx.stop.controller.signal);
    listed = await adapter.listRecent(ctx.client, window, callFor(ctx, job.key));
  } catch (error) {
    if (ctx.stop.halted) return 'wait';
    const message = error instanceof Error ? error.message : String(error);
    // Why a 4xx holds at once: the service refused the search itself; asking again changes nothing.
    if (error instanceof ApiStatusError && error.status < 500 && !(error instanceof ApiRateLimitError)) {
      return holdInDoubt(ctx, job, `the ${job.kind} list was refused, so the service cannot be searched: ${message}`);
    }
    await ctx.store.note('job:in-doubt', job.key, { listFailed: message });
    return 'list-failed';
  }
  const matching = listed.flatMap((item) => {
    const id = matchesIntent(attempt.request, item) ? adapter.remoteIdOf(item, { request: attempt.request }) : undefined;
    return id === undefined ? [] : [{ item, id }];
  });
  const known = await ctx.store.remoteIdsKnown(job.kind, matching.map((m) => m.id));
  const match = matching
    .filter(({ id }) => !known.has(id))
    .map(({ item }) => item)
    .sort((a, b) => String(a.created_at ?? '').localeCompare(String(b.created_at ?? '')))[0];
  if (match) return markFound(ctx, job, attempt.id, match, adapter.remoteIdOf(match, { request: attempt.request }) as string);
  if (now - attempt.intentAt < ctx.options.inDoubtSettleMs) return 'wait';
  return markAbsent(ctx, job, attempt.id, `no ${job.kind} created between ${window.after} and ${window.before} matches the intent`);
}

/** Adopts the job a webhook delivery to the attempt's own address named, once a GET confirms it. */
async function adoptDelivered(ctx: RunContext, job: JobRow, attempt: AttemptRow, adapter: KindAdapter): Promise<ReconcileResult> {
  const remoteId = attempt.deliveredId as string;
  let confirmed: Confirmation;
  try {
    await ctx.limiter.acquire(ctx.stop.controller.signal);
    confirmed = await confirmRemote(ctx.client, ctx.store, adapter, remoteId, attempt.request, attempt.id, callFor(ctx, job.key));
  } catch (error) {
    if (ctx.stop.halted) return 'wait';
    await ctx.store.note('job:in-doubt', job.key, { deliveredReadFailed: error instanceof Error ? error.message : String(error) });
    return 'list-failed';
  }
  if ('refused' in confirmed) return holdInDoubt(ctx, job, `the service named ${remoteId} for this attempt, but it was not adopted: ${confirmed.refused}`);
  return markFound(ctx, job, attempt.id, confirmed.resource, remoteId, `adopted ${remoteId}, named by the service for this attempt (its webhook, or a creation answer observed after its run lost the lock)`);
}

async function markFound(ctx: RunContext, job: JobRow, attemptId: number, resource: Resource, remoteId: string, why = `reconciled: found ${remoteId}`): Promise<ReconcileResult> {
  const view = adapterFor(job.kind, ctx.planned.get(job.key)?.mode).view(resource);
  const { row } = await ctx.store.write({
    key: job.key,
    attempt: { id: attemptId, state: 'matched', remoteId },
    move: {
      to: 'submitted',
      change: { remoteId, remoteStatus: view.remoteStatus, result: resource, submittedAt: ctx.clock.now() },
      type: 'job:reconciled',
      data: { found: remoteId, why },
    },
    durable: true,
  });
  announce(ctx, row, why);
  return 'found';
}

/**
 * Adopts the remote id an earlier run kept from a creation answer it failed to record. A kind
 * finished at creation (a voice, a link) is done at once with the kept answer and its cost —
 * tracking it would read a kind that may have no read at all. Without a kept answer (a row an
 * older reelpipe left) such a kind is still tracked only if it can be read; else it is held.
 */
async function adoptRecorded(ctx: RunContext, job: JobRow, remoteId: string): Promise<ReconcileResult> {
  const adapter = adapterFor(job.kind, ctx.planned.get(job.key)?.mode);
  if (adapter.mode === 'instant' && job.result) return adoptInstant(ctx, job, adapter, job.result, remoteId);
  if (!adapter.read) {
    return holdInDoubt(ctx, job, `${job.kind} ${remoteId} was created but its answer was not kept, and ${job.kind} jobs cannot be read`);
  }
  const { row } = await ctx.store.write({
    key: job.key,
    move: { to: 'submitted', change: { remoteId, submittedAt: job.submittedAt ?? ctx.clock.now() }, type: 'job:reconciled', data: { recorded: remoteId } },
    durable: true,
  });
  announce(ctx, row, `reconciled: the answer's remote id ${remoteId} was recorded`);
  return 'found';
}

async function adoptInstant(ctx: RunContext, job: JobRow, adapter: KindAdapter, resource: Resource, remoteId: string): Promise<ReconcileResult> {
  const now = ctx.clock.now();
  const { write, creditsUsed } = endWrite({ row: job, planned: ctx.planned.get(job.key), adapter }, 'done', { resource, view: adapter.view(resource), at: now }, {
    type: 'job:reconciled',
    data: { recorded: remoteId },
    extra: { remoteId, submittedAt: job.submittedAt ?? now },
  });
  const { row } = await ctx.store.write({ ...write, durable: true });
  settleCost(ctx, job.key, creditsUsed);
  announce(ctx, row, `reconciled: the kept answer of ${remoteId} finished it`);
  return 'found';
}

async function markAbsent(ctx: RunContext, job: JobRow, attemptId: number | undefined, why: string): Promise<ReconcileResult> {
  const { row } = await ctx.store.write({
    key: job.key,
    ...(attemptId === undefined ? {} : { attempt: { id: attemptId, state: 'absent' as const, error: why } }),
    move: { to: 'planned', change: { creditsReserved: 0 }, type: 'job:reconciled', data: { absent: true, why } },
    durable: true,
  });
  ctx.ledger.release(job.key);
  announce(ctx, row, `reconciled: ${why}`);
  return 'absent';
}

function hold(ctx: RunContext, job: JobRow, strategy: string): Promise<ReconcileResult> {
  const why = strategy === 'none' ? `${job.kind} jobs cannot be listed, so the service cannot be searched` : 'no intent recorded';
  return holdInDoubt(ctx, job, why);
}

/** Keeps `job` in doubt for the operator, recording `why` as its reason (status and the summary show it). */
export async function holdInDoubt(ctx: RunContext, job: JobRow, why: string): Promise<ReconcileResult> {
  await ctx.store.write({ key: job.key, move: { to: 'in_doubt', change: { doubtReason: heldReason(job.doubtReason, why) }, type: 'job:in-doubt', data: { held: true, why } } });
  announce(ctx, job, `held in doubt: ${why}; rerun with --resubmit-in-doubt to resubmit`);
  return 'held';
}

/** The reason a held job shows: how it fell in doubt, then why it stays there (said once). */
function heldReason(previous: string | null, why: string): string {
  if (!previous) return why;
  return previous.includes(why) ? previous : `${previous}; ${why}`;
}
