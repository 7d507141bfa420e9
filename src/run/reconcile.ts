import type { JobRow } from '../state/index.js';
import { adapterFor, type Resource } from './adapters/index.js';
import { matchesIntent } from './match-intent.js';
import type { RunContext } from './run-context.js';
import { announce } from './submit-job.js';

/**
 * How reconciling one in-doubt job came out:
 * - `found`: the job the intent created exists; it is tracked from here (never resubmitted);
 * - `absent`: it provably does not exist (or resending is harmless): back to planned;
 * - `wait`: not found yet, but too soon to call it absent (a slow request may still land);
 * - `held`: the kind cannot be searched; held in doubt for the operator.
 */
export type ReconcileResult = 'found' | 'absent' | 'wait' | 'held';

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Settles a job whose POST may or may not have created something. The intent's request and
 * time are the evidence: a listed job of the same kind, created within the intent's window
 * (allowing for clock skew), whose fields match what was sent, and which no other row claims.
 */
export async function reconcileJob(ctx: RunContext, job: JobRow): Promise<ReconcileResult> {
  const attempt = ctx.store.lastAttempt(job.key);
  const adapter = adapterFor(job.kind, ctx.planned.get(job.key)?.mode);
  // The answer came and its id was kept, only handling it failed: no search, the id is the evidence.
  if (job.remoteId) return adoptRecorded(ctx, job, job.remoteId);
  if (adapter.reconcile === 'resend') return markAbsent(ctx, job, attempt?.id, 'the operation is idempotent: sent again');
  if (adapter.reconcile === 'none' || !adapter.listRecent || !attempt) {
    // Only where the service cannot be searched does the operator's word replace the evidence.
    if (ctx.resubmit.delete(job.key)) return markAbsent(ctx, job, attempt?.id, 'the operator chose --resubmit-in-doubt');
    return hold(ctx, job, adapter.reconcile);
  }
  const now = ctx.clock.now();
  const window = { after: iso(attempt.intentAt - ctx.options.clockSkewMs), before: iso(now + ctx.options.clockSkewMs) };
  let listed: Resource[];
  try {
    await ctx.limiter.acquire(ctx.stop.controller.signal);
    listed = await adapter.listRecent(ctx.client, window);
  } catch {
    return 'wait';
  }
  const match = listed
    .filter((item) => matchesIntent(attempt.request, item))
    .filter((item) => {
      const id = adapter.remoteIdOf(item, { request: attempt.request });
      return id !== undefined && !ctx.store.jobByRemoteId(job.kind, id);
    })
    .sort((a, b) => String(a.created_at ?? '').localeCompare(String(b.created_at ?? '')))[0];
  if (match) return markFound(ctx, job, attempt.id, match, adapter.remoteIdOf(match, { request: attempt.request }) as string);
  if (now - attempt.intentAt < ctx.options.inDoubtSettleMs) return 'wait';
  return markAbsent(ctx, job, attempt.id, `no ${job.kind} created between ${window.after} and ${window.before} matches the intent`);
}

function markFound(ctx: RunContext, job: JobRow, attemptId: number, resource: Resource, remoteId: string): ReconcileResult {
  const view = adapterFor(job.kind, ctx.planned.get(job.key)?.mode).view(resource);
  const row = ctx.store.durably(() => {
    ctx.store.closeAttempt(attemptId, 'matched', { remoteId });
    return ctx.store.transition(job.key, 'submitted', {
      remoteId,
      remoteStatus: view.remoteStatus,
      result: resource,
      submittedAt: ctx.clock.now(),
    }, 'job:reconciled', { found: remoteId });
  });
  announce(ctx, row, `reconciled: found ${remoteId}`);
  return 'found';
}

function adoptRecorded(ctx: RunContext, job: JobRow, remoteId: string): ReconcileResult {
  const row = ctx.store.durably(() =>
    ctx.store.transition(job.key, 'submitted', { remoteId, submittedAt: job.submittedAt ?? ctx.clock.now() }, 'job:reconciled', { recorded: remoteId }),
  );
  announce(ctx, row, `reconciled: the answer's remote id ${remoteId} was recorded`);
  return 'found';
}

function markAbsent(ctx: RunContext, job: JobRow, attemptId: number | undefined, why: string): ReconcileResult {
  const row = ctx.store.durably(() => {
    if (attemptId !== undefined) ctx.store.closeAttempt(attemptId, 'absent', { error: why });
    return ctx.store.transition(job.key, 'planned', { creditsReserved: 0 }, 'job:reconciled', { absent: true, why });
  });
  ctx.ledger.release(job.key);
  announce(ctx, row, `reconciled: ${why}`);
  return 'absent';
}

function hold(ctx: RunContext, job: JobRow, strategy: string): ReconcileResult {
  const why = strategy === 'none' ? `${job.kind} jobs cannot be listed, so the service cannot be searched` : 'no intent recorded';
  ctx.store.transition(job.key, 'in_doubt', { doubtReason: heldReason(job.doubtReason, why) }, 'job:in-doubt', { held: true, why });
  announce(ctx, job, `held in doubt: ${why}; rerun with --resubmit-in-doubt to resubmit`);
  return 'held';
}

/** The reason a held job shows: how it fell in doubt, then why it stays there (said once). */
function heldReason(previous: string | null, why: string): string {
  if (!previous) return why;
  return previous.includes(why) ? previous : `${previous}; ${why}`;
}
