import { ApiNotFoundError, type CallOptions } from '../../api/index.js';
import { resolveJob, UnresolvedReferenceError } from '../../plan/resolve.js';
import type { PlannedJob } from '../../plan/types.js';
import { formatCredits } from '../../util/format.js';
import { adapterFor, type KindAdapter, type Resource, type SubmitInput } from '../adapters/index.js';
import { callFor, type RunContext } from '../run-context.js';
import { announce } from '../announce.js';
import { atThatMoment, namedJob, settleCost, stopForBudget } from '../budget/budget-stop.js';
import { reservationFor } from '../budget/reservation.js';
import { mintHookToken } from '../track/webhook-receiver.js';
import { intentWithin } from './account-gate.js';
import { itemsToSend } from './items-to-send.js';
import { judgeSubmitError, type SubmitVerdict } from './submit-errors.js';
import { noteSoon } from '../local-fault-stop.js';

type Input = SubmitInput & { hookToken: string | null; share: number };

/** How one submission ended, for the scheduler. */
export type SubmitResult =
  | 'submitted'
  | 'finished'
  | 'rejected'
  | 'in-doubt'
  | 'not-created'
  | 'not-submitted';

/**
 * Submits one planned job, exactly once:
 *   1. resolve the request against upstream results; reserve budget;
 *   2. wait for the rate limiter, then COMMIT THE INTENT (durably) — the POST may now happen;
 *   3. POST; 4. COMMIT THE REMOTE ID.
 * A crash between 2 and 4 leaves an intent without an answer, which the next run reconciles.
 * Why only the intent waits for the disk (synchronous=FULL): an intent lost to a power cut after
 * its POST was sent would let the next run send it again, unknowing — paid twice. An answer lost
 * the same way leaves the intent behind, so the job is found in doubt, never resent blindly; a
 * process crash loses neither (WAL), and the next intent's fsync carries it to disk anyway.
 */
export async function submitJob(ctx: RunContext, planned: PlannedJob): Promise<SubmitResult> {
  const adapter = adapterFor(planned.kind, planned.mode);
  let input: Input;
  try {
    input = await resolveInput(ctx, planned);
  } catch (error) {
    if (!(error instanceof UnresolvedReferenceError) || error.missing !== 'field') throw error;
    const { row } = await ctx.store.write({ key: planned.key, move: { to: 'rejected', change: { failedReason: error.message, creditsUsed: 0 }, type: 'job:rejected' } });
    announce(ctx, row, error.message);
    return 'rejected';
  }
  if (adapter.mode === 'lookup') return lookup(ctx, planned, adapter, input);
  if (!reserve(ctx, planned, input.share)) return 'not-submitted';
  // At most as many creations at once as the client has sockets for them: an intent is committed
  // only when its POST can go on the wire at once, so every job in `submitting` truly is sent or
  // about to be, and a crash leaves no queued, never-sent POST looking "in doubt".
  return ctx.creating(() => create(ctx, planned, adapter, input));
}

/** Steps 2 to 4 of submitJob, holding one of the creating slots. */
async function create(ctx: RunContext, planned: PlannedJob, adapter: KindAdapter, input: Input): Promise<SubmitResult> {
  await ctx.limiter.acquire(ctx.stop.controller.signal).catch(() => undefined);
  // A real cost above its estimate may have passed the cap meanwhile: then even a job holding
  // its reservation is not sent. Nor is one once the run lock's lease ran out by this process's
  // own clock: a run paused past it may have been taken over (a heartbeat renews a lease that
  // ran out only because the database was slow).
  if (ctx.stop.refusesReserved || ctx.ledger.overCap || !(await ctx.lease.fresh())) {
    ctx.ledger.release(planned.key);
    return 'not-submitted';
  }
  // Durable before the POST, committed with the other intents of this moment (one fsync for a wave).
  // Under the account's limits, asked in the same transaction (account-gate.ts).
  const attemptId = await intentWithin(ctx, {
    key: planned.key,
    request: input.request,
    hookToken: input.hookToken,
    pathId: input.pathId ?? null,
    creditsReserved: reservationFor(planned, input.share) ?? 0,
  });
  if (attemptId === null) {
    ctx.ledger.release(planned.key);
    return 'not-submitted';
  }
  try {
    ctx.kill('before-post');
  } catch (error) {
    await notSent(ctx, planned.key, attemptId, error);
    throw error;
  }
  let resource: Resource;
  try {
    resource = await adapter.submit(ctx.client, input, creatingCall(ctx, planned.key));
  } catch (error) {
    if (adapter.goneMeansDone && error instanceof ApiNotFoundError && (await sentBefore(ctx, planned.key, attemptId))) {
      return await recordAnswer(ctx, planned, adapter, attemptId, { id: input.pathId ?? null, gone: true }, input);
    }
    return recordFailure(ctx, planned, attemptId, judgeSubmitError(error));
  }
  let recorded: Awaited<ReturnType<typeof recordAnswer>>;
  try {
    ctx.kill('after-post');
    ctx.limiter.succeeded();
    recorded = await recordAnswer(ctx, planned, adapter, attemptId, resource, input);
  } catch (error) {
    await keepAnswer(ctx, planned.key, adapter, attemptId, resource, input, error);
    throw error;
  }
  ctx.kill('after-submit');
  return recorded;
}

/**
 * A creating request's call: checked once more right before each attempt is written (the lease may
 * have run out while the intent committed, or a retry waited): past it, the request is not sent,
 * and is recorded so (not created: the job is planned again).
 */
function creatingCall(ctx: RunContext, key: string): CallOptions {
  return {
    ...callFor(ctx, key),
    beforeCreating: () => {
      if (!ctx.lease.valid()) throw new Error("the run lock's lease ran out before the request was written (another run may take over)");
    },
  };
}

/**
 * Whether an earlier attempt of the job may have reached the service: any attempt but this one
 * that was not provably unsent (`not_sent`) or refused (`rejected`: a 4xx changed nothing).
 */
async function sentBefore(ctx: RunContext, key: string, attemptId: number): Promise<boolean> {
  return (await ctx.store.attempts(key)).some((a) => a.id !== attemptId && a.state !== 'not_sent' && a.state !== 'rejected');
}

/** An error between the intent and the POST: the POST was never sent, so the job is simply planned again. */
async function notSent(ctx: RunContext, key: string, attemptId: number, error: unknown): Promise<void> {
  const message = `not sent: ${error instanceof Error ? error.message : String(error)}`;
  await ctx.store.write({
    key,
    attempt: { id: attemptId, state: 'not_sent', error: message },
    move: { to: 'planned', change: { creditsReserved: 0 }, type: 'job:not-created', data: { message } },
    durable: true,
  });
  ctx.ledger.release(key);
}

/**
 * The POST was answered but handling the answer threw. Whatever else failed, the remote id must
 * not be lost (the job exists and is paid for): it is committed durably on the attempt and the
 * job, which is held in doubt with the reason; the next run adopts that id instead of searching.
 */
async function keepAnswer(
  ctx: RunContext,
  key: string,
  adapter: KindAdapter,
  attemptId: number,
  resource: Resource,
  input: SubmitInput,
  error: unknown,
): Promise<void> {
  let remoteId: string | null = null;
  try {
    remoteId = adapter.remoteIdOf(resource, input) ?? null;
  } catch {
    // An answer without a readable id: in doubt like a lost answer, reconciled by search.
  }
  const why = `answered${remoteId ? ` with remote id ${remoteId}` : ''}, but recording the answer failed: ${error instanceof Error ? error.message : String(error)}`;
  try {
    // The answer itself is kept too: for a kind finished at creation (a voice, a link) it is the
    // result, and some of those kinds can never be read again.
    await ctx.store.write({
      key,
      onlyFrom: ['submitting'],
      attempt: { id: attemptId, state: 'answered', ...(remoteId ? { remoteId } : {}), error: why },
      move: { to: 'in_doubt', change: { remoteId, result: resource, doubtReason: why }, type: 'job:in-doubt', data: { message: why, remoteId } },
      durable: true,
    });
  } catch (failure) {
    // Refused (the run lost its lock to another, which holds the job now) or failed: the id is
    // still kept where no fence stops it, as observed, and whoever reconciles the job adopts it.
    const kept = remoteId !== null && (await ctx.store.observeAnswer(key, attemptId, remoteId, why).catch(() => false));
    if (kept) {
      ctx.events.emit('run:note', { message: `${key} was created as remote id ${remoteId}; its answer could not be recorded (${failure instanceof Error ? failure.message : String(failure)}), so it was kept as observed: the run that reconciles the job adopts it` });
    } else if (remoteId) {
      // The database cannot take it either (a full disk): the id would die with this process, and
      // the job is paid for. Said on the operator's screen and log, so it can be adopted by hand.
      const message = `${key} WAS CREATED as remote id ${remoteId}, but the state database could not record it (${failure instanceof Error ? failure.message : String(failure)}); once the machine is fixed, run \`reelpipe resolve MANIFEST ${key} --adopt ${remoteId}\` so it is not paid for twice`;
      ctx.events.emit('run:note', { message });
    }
    throw failure;
  }
}

/** Kinds whose creating request takes webhook_url (spec, Events). */
export const TAKES_WEBHOOK = new Set<string>([
  'ai_short', 'ai_editing', 'product_regen', 'persona', 'html_ads', 'lipsync_v2', 'boreal', 'ad_clone',
  'text_generation', 'asset_generation', 'custom_template',
]);

/**
 * Whether an attempt of this kind gets its own webhook address when the run listens. Why not a
 * template render: it continues a preview another job made, and its body takes no address the
 * service would deliver for this attempt alone.
 */
export function getsAttemptWebhook(kind: string, mode: string | undefined): boolean {
  return TAKES_WEBHOOK.has(kind) && mode !== 'render';
}

/**
 * The request to send, references resolved. When the run listens for webhooks and the kind takes
 * one, the attempt gets its own address (a fresh token): a delivery to it identifies the job this
 * very POST made, even if its answer is lost. The manifest's own webhook_url wins (then the run
 * neither hears nor needs one).
 */
async function resolveInput(ctx: RunContext, planned: PlannedJob): Promise<Input> {
  const upstream = new Map((await ctx.store.jobs(planned.refs.map((ref) => ref.jobKey))).map((row) => [row.key, row.result]));
  const resolved = resolveJob(planned, (jobKey) => upstream.get(jobKey) ?? undefined);
  const { request, share } = await itemsToSend(ctx.store, planned, adapterFor(planned.kind, planned.mode), { ...resolved.request });
  let hookToken: string | null = null;
  if (ctx.webhooks && getsAttemptWebhook(planned.kind, planned.mode) && (request.webhook_url === undefined || request.webhook_url === null)) {
    hookToken = mintHookToken();
    request.webhook_url = ctx.webhooks.urlFor(hookToken);
  }
  return { request, pathId: resolved.pathId, hookToken, share };
}

/**
 * Policy: under a cap, a job whose cost nobody can estimate is not submitted (the manifest's
 * `estimate_credits` makes it submittable); without a cap it holds no reservation.
 */
function reserve(ctx: RunContext, planned: PlannedJob, share: number): boolean {
  const amount = reservationFor(planned, share);
  if (amount === null && ctx.ledger.cap !== null) {
    stopForBudget(ctx, planned.key, `${namedJob(ctx, planned.key)} has no credit estimate; under a cap, give its step estimate_credits`);
    return false;
  }
  if (ctx.ledger.reserve(planned.key, amount ?? 0)) return true;
  stopForBudget(
    ctx,
    planned.key,
    `${namedJob(ctx, planned.key)} was not submitted: its high estimate of ${formatCredits(amount ?? 0)} could pass the cap (${atThatMoment(ctx)})`,
  );
  return false;
}


async function recordAnswer(
  ctx: RunContext,
  planned: PlannedJob,
  adapter: KindAdapter,
  attemptId: number,
  resource: Resource,
  input: SubmitInput,
): Promise<SubmitResult> {
  const remoteId = adapter.remoteIdOf(resource, input) ?? null;
  const view = adapter.view(resource);
  const instant = adapter.mode === 'instant';
  const creditsUsed = instant ? (view.creditsUsed ?? adapter.fixedCredits ?? null) : null;
  const { row } = await ctx.store.write({
    key: planned.key,
    attempt: { id: attemptId, state: 'answered', ...(remoteId ? { remoteId } : {}) },
    move: {
      to: instant ? 'done' : 'submitted',
      change: {
        remoteId,
        remoteStatus: view.remoteStatus,
        result: resource,
        submittedAt: ctx.clock.now(),
        ...(instant ? { creditsUsed, finishedAt: ctx.clock.now() } : {}),
      },
      type: 'job:answered',
      data: { remoteId, remoteStatus: view.remoteStatus },
    },
  });
  if (instant) settleCost(ctx, planned.key, creditsUsed);
  announce(ctx, row);
  return instant ? 'finished' : 'submitted';
}

async function recordFailure(ctx: RunContext, planned: PlannedJob, attemptId: number, verdict: SubmitVerdict): Promise<SubmitResult> {
  const key = planned.key;
  const error = verdict.message;
  const data = { message: verdict.message };
  const { row } = await ctx.store.write(
    verdict.kind === 'in-doubt'
      ? { key, attempt: { id: attemptId, state: 'in_doubt', error }, move: { to: 'in_doubt', change: { doubtReason: error }, type: 'job:in-doubt', data } }
      : verdict.kind === 'rejected'
        ? { key, attempt: { id: attemptId, state: 'rejected', error }, move: { to: 'rejected', change: { failedReason: error, creditsReserved: 0, creditsUsed: 0 }, type: 'job:rejected', data } }
        : { key, attempt: { id: attemptId, state: 'not_sent', error }, move: { to: 'planned', change: { creditsReserved: 0 }, type: 'job:not-created', data } },
  );
  if (verdict.kind !== 'in-doubt') ctx.ledger.release(key);
  if (verdict.kind === 'account') stopForAccount(ctx, planned, verdict);
  if (verdict.kind === 'not-created' && verdict.rateLimited) ctx.limiter.throttled();
  announce(ctx, row, verdict.message);
  return verdict.kind === 'in-doubt' ? 'in-doubt' : verdict.kind === 'rejected' ? 'rejected' : 'not-created';
}

/** The account refused (a key refused, credits short): nothing more is submitted in this run (first reason wins). */
export function stopForAccount(ctx: RunContext, planned: Pick<PlannedJob, 'key'>, verdict: Omit<Extract<SubmitVerdict, { kind: 'account' }>, 'kind'>): void {
  if (!ctx.stop.stop(verdict.reason, verdict.message)) return;
  noteSoon(ctx, 'account:stop', planned.key, { reason: verdict.reason, message: verdict.message });
  ctx.events.emit('run:stopping', { reason: verdict.reason, message: verdict.message });
}

/** A free read resolving a value for other steps (music): no intent, no money, nothing to reconcile. */
async function lookup(ctx: RunContext, planned: PlannedJob, adapter: KindAdapter, input: SubmitInput): Promise<SubmitResult> {
  await ctx.limiter.acquire(ctx.stop.controller.signal).catch(() => undefined);
  if (ctx.stop.halted) return 'not-submitted';
  let resource: Resource;
  try {
    resource = await adapter.submit(ctx.client, input, callFor(ctx, planned.key));
  } catch (error) {
    const verdict = judgeSubmitError(error);
    // A read creates nothing, so "in doubt" cannot arise: anything but a refusal is tried again later.
    if (verdict.kind === 'rejected') {
      const { row } = await ctx.store.write({ key: planned.key, move: { to: 'rejected', change: { failedReason: verdict.message, creditsUsed: 0 }, type: 'job:rejected' } });
      announce(ctx, row);
      return 'rejected';
    }
    if (verdict.kind === 'account') stopForAccount(ctx, planned, verdict);
    return 'not-created';
  }
  const view = adapter.view(resource);
  const failed = view.phase === 'failed';
  const { row } = await ctx.store.write({
    key: planned.key,
    move: failed
      ? { to: 'rejected', change: { failedReason: view.failedReason, creditsUsed: 0 }, type: 'job:rejected' }
      : { to: 'done', change: { result: resource, remoteStatus: view.remoteStatus, creditsUsed: 0, finishedAt: ctx.clock.now() }, type: 'job:answered' },
  });
  announce(ctx, row);
  return failed ? 'rejected' : 'finished';
}
