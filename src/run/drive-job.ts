import type { JobRow, JobState, JobStatus } from '../state/index.js';
import { adapterFor } from './adapters/index.js';
import type { Deferred } from './deferred.js';
import { expectedSeconds } from './track/expected-duration.js';
import { downloadOutputs, outputsIntact } from './outputs/download-outputs.js';
import { runOutputHooks } from './hooks/output-hooks.js';
import { holdInDoubt, reconcileJob } from './reconcile/reconcile.js';
import type { RunContext } from './run-context.js';
import { announce } from './announce.js';
import { submitJob } from './submit/submit-job.js';
import { afterFailure } from './retry-failed.js';
import type { TrackOutcome, Tracker } from './track/tracker.js';

/** How a job ended in this run: `ok` finished and downloaded; `unfinished` left for a later run. */
export type JobOutcome = 'ok' | 'failed' | 'unfinished';

/** A job not created because the service turned it away for now (429, 503) is tried this many times per run. */
const MAX_NOT_CREATED = 5;

/**
 * Consecutive failed reads of a reconciliation list before the job is held in doubt. Why 5: the
 * client already retries each read through 429s and 503s, and the loop pauses a third of the
 * settle time between tries (10 s at scale 1), so 5 failures mean the list has been unusable for
 * about a minute beyond the client's own retries — past a blip, and the run must not hold its
 * lock waiting on a list that may never come back. A later run tries again.
 */
export const MAX_LIST_FAILURES = 5;

/**
 * Creating POSTs of one job that may be resubmitted after reconciliation proved the last one
 * created nothing, per run. Why a bound, and why 3: each such cycle is a POST the service took
 * but did not answer (a 5xx, a timeout), then a list that showed nothing; a service failing the
 * same creation three times running is not having a blip, and every further POST is another
 * chance of a job landing after the settle time, paid for twice (docs/exactly-once.md). The job
 * stays planned for the next run, the reason in its events.
 */
export const MAX_ABSENT_RESUBMITS = 3;

export interface DriveHooks {
  tracker: Tracker;
  /** Runs `fn` inside the job's concurrency slots (global and per kind). */
  inSlot: <T>(fn: () => Promise<T>) => Promise<T>;
  /** Runs `fn` inside the download concurrency limit. */
  inDownloadSlot: <T>(fn: () => Promise<T>) => Promise<T>;
  /** Said when the remote job is finished (its result is what dependents read), or how it ended otherwise. */
  ready: Pick<Deferred<JobOutcome>, 'resolve'>;
  /** Its status as the drive was given it (a claim's): a job given `planned` starts without reading its row. */
  claimed?: JobStatus;
  /** Resolves once every job this one needs is finished: `ok`, or how the first of them ended. */
  upstream: () => Promise<JobOutcome>;
}

/**
 * Carries one job from wherever the state database says it is to its end in this run:
 *
 *   in_doubt ─reconcile─▶ submitted | planned | (held: unfinished)
 *   planned ─submit─▶ submitted | done (instant kinds) | rejected | in_doubt | planned (retry later)
 *   submitted | running ─track─▶ done | failed
 *   failed (ended in this run) ─retries left (retry-failed.ts)─▶ planned ─submit─▶ …
 *   done ─download─▶ downloaded | partly_failed ─output hooks─▶ downloaded | partly_failed | hook_failed
 *   partly_failed (ended in this run) ─retries left─▶ planned ─submit (its failed items only)─▶ …
 *
 * Only a job still to be submitted waits for the jobs it needs, outside any slot: one already
 * sent (submitted, running, in doubt) exists at the service whatever became of its upstream, so it
 * is tracked and downloaded regardless — it is paid for, and a run must never leave it unread.
 * The job holds a concurrency slot from submission until its remote job is finished; its
 * download runs in the separate download limit, so slow files never block new submissions.
 */
export async function driveJob(ctx: RunContext, key: string, hooks: DriveHooks): Promise<JobOutcome> {
  // Its first look at itself: the state the run started with (a finished job needs no more), or
  // its claim's (null: planned, its row read once it is sent — a read a job saved).
  let row: JobState | null = ctx.start.rows.get(key) ?? (hooks.claimed === 'planned' ? null : await current(ctx, key));
  ctx.start.rows.delete(key);
  const status = row?.status ?? 'planned';
  if (status === 'failed' || status === 'rejected') return finish(hooks, 'failed');
  if (status === 'planned') {
    const upstream = await hooks.upstream();
    if (upstream !== 'ok') return finish(hooks, upstream === 'failed' ? 'failed' : 'unfinished');
  }
  // Once more for each retry (retry-failed.ts): a job the service failed, or an HTML ad job some
  // of whose ads failed, planned again in this run; each attempt takes a slot of its own.
  for (;;) {
    // Whether its remote job ends in this run: only such an end is retried.
    const endsHere = row === null || (row.status !== 'done' && !onDisk(row));
    if (endsHere) {
      // Awaited here, not in a helper: the download backlog must be joined in the same turn the
      // slot is freed, or the next job could take the slot before the backlog counts this one.
      // Its row is read inside the slot for the same reason: no await between the two.
      let after: JobRow | undefined;
      const held = await hooks.inSlot(async () => {
        const end = await untilRemoteFinished(ctx, key, hooks);
        if (end === 'ok') after = await current(ctx, key);
        return end;
      });
      // A delivery said the job finished: its slot went to the next job; the read confirms it here.
      const remote = typeof held === 'string' ? held : trackOutcome(await held.confirmed);
      if (remote === 'failed' && (await afterFailure(ctx, key)) === 'retry') {
        row = await current(ctx, key);
        continue;
      }
      if (remote !== 'ok') return finish(hooks, remote);
      row = after ?? (await current(ctx, key));
    }
    row ??= await current(ctx, key);
    hooks.ready.resolve('ok');
    const outcome = await keepFiles(ctx, key, row, hooks);
    // A job of items (HTML ads) may have made only some: its retry asks for the failed ones only
    // (submit/items-to-send.ts). Any other job is over here, without reading it again.
    if (!endsHere || !adapterFor(row.kind).items || (await afterFailure(ctx, key)) !== 'retry') return outcome;
    row = await current(ctx, key);
  }
}

/** The files of a finished job: checked if on disk (then its output hooks owed), else downloaded. */
async function keepFiles(ctx: RunContext, key: string, at: JobState, hooks: DriveHooks): Promise<JobOutcome> {
  let row = at;
  if (onDisk(row)) {
    // The output hooks owed (none, once they have all run) run after the files are checked.
    if (await outputsIntact(ctx, row)) return runOutputHooks(ctx, key, row.status);
    ({ row } = await ctx.store.write({ key, move: { to: 'done', change: { failedReason: null }, type: 'job:output-missing', data: { message: 'an output file is missing or altered' } } }));
  }
  if (ctx.stop.halted) return 'unfinished';
  // Its answer (with the links to fetch) is read now: the state it started with does not carry it.
  const finished = 'result' in row ? (row as JobRow) : await current(ctx, key);
  return (await hooks.inDownloadSlot(() => downloadOutputs(ctx, finished))) ? runOutputHooks(ctx, key, 'downloaded') : 'unfinished';
}

/** Downloaded, whatever its output hooks did (or its failed items): the remote job is finished and its files were on disk. */
const onDisk = (row: JobState) => row.status === 'downloaded' || row.status === 'hook_failed' || row.status === 'partly_failed';

function finish(hooks: DriveHooks, outcome: JobOutcome): JobOutcome {
  hooks.ready.resolve(outcome);
  return outcome;
}

async function current(ctx: RunContext, key: string): Promise<JobRow> {
  const row = await ctx.store.job(key);
  if (!row) throw new Error(`job ${key} vanished from the state database`);
  return row;
}

const trackOutcome = (outcome: TrackOutcome): JobOutcome => (outcome === 'done' ? 'ok' : outcome === 'failed' ? 'failed' : 'unfinished');

/**
 * How a job's time in its slot ended: an outcome, or — when the service's delivery said the job
 * finished before a read confirmed it — the confirmation still to come. The slot is the service's
 * capacity, and a finished job no longer holds any: the next job goes at once.
 */
type SlotEnd = JobOutcome | { confirmed: Promise<TrackOutcome> };

async function untilRemoteFinished(ctx: RunContext, key: string, hooks: DriveHooks): Promise<SlotEnd> {
  let notCreated = 0;
  let listFailures = 0;
  let absent = 0;
  for (;;) {
    if (ctx.stop.halted) return 'unfinished';
    const row = await current(ctx, key);
    switch (row.status) {
      case 'in_doubt': {
        const result = await reconcileJob(ctx, row);
        if (result === 'held') {
          if (await deliveryCame(ctx, key)) continue;
          return 'unfinished';
        }
        if (result === 'absent' && ++absent >= MAX_ABSENT_RESUBMITS) return await leaveForNextRun(ctx, key, absent);
        listFailures = result === 'list-failed' ? listFailures + 1 : 0;
        if (listFailures >= MAX_LIST_FAILURES) {
          await holdInDoubt(ctx, await current(ctx, key), `the ${row.kind} list failed ${listFailures} times in a row; a later run searches again`);
          return 'unfinished';
        }
        if (result === 'wait' || result === 'list-failed') await pause(ctx, ctx.options.inDoubtSettleMs / 3);
        continue;
      }
      case 'planned': {
        if (!ctx.stop.submitting) return 'unfinished';
        const result = await submitJob(ctx, ctx.planned.get(key)!);
        if (result === 'rejected') return 'failed';
        if (result === 'not-submitted') return 'unfinished';
        if (result === 'not-created' && ++notCreated >= MAX_NOT_CREATED) return 'unfinished';
        if (result === 'not-created') await pause(ctx, 1000 * 2 ** notCreated * ctx.options.timeScale);
        continue;
      }
      case 'submitted':
      case 'running': {
        const tracking = hooks.tracker.track(row);
        const first = await Promise.race([tracking, hooks.tracker.finishing(key).then(() => 'finishing' as const)]);
        return first === 'finishing' ? { confirmed: tracking } : trackOutcome(first);
      }
      case 'done':
      case 'downloaded':
      case 'hook_failed':
      case 'partly_failed':
        return 'ok';
      default:
        return row.status === 'failed' || row.status === 'rejected' ? 'failed' : 'unfinished';
    }
  }
}

/**
 * A job held in doubt whose attempt had its own webhook address may still be named by a
 * delivery. Policy: the service delivers on status changes, the last at the job's end, so a
 * delivery is awaited until three times the job's expected duration after its intent (at least
 * the in-doubt settle time); an attempt that created nothing never gets one, and the job is then
 * left for a person (or a later run that hears a late delivery).
 */
async function deliveryCame(ctx: RunContext, key: string): Promise<boolean> {
  const attempt = await ctx.store.lastAttempt(key);
  if (!ctx.webhooks || !attempt?.hookToken || attempt.deliveredId) return false;
  const planned = ctx.planned.get(key);
  const expectedMs = expectedSeconds(planned, adapterFor((await current(ctx, key)).kind, planned?.mode).typicalSeconds) * 1000 * ctx.options.timeScale;
  const until = attempt.intentAt + Math.max(3 * expectedMs, ctx.options.inDoubtSettleMs);
  const wait = until - ctx.clock.now();
  if (wait <= 0) return false;
  return ctx.webhooks.awaitDelivery(attempt.hookToken, wait, ctx.stop.controller.signal);
}

async function leaveForNextRun(ctx: RunContext, key: string, cycles: number): Promise<JobOutcome> {
  const why =
    `${cycles} creating requests in a row got no usable answer and created nothing; ` +
    'not sent again in this run (the next run submits it again)';
  await ctx.store.note('job:not-created', key, { message: why, deferred: true });
  announce(ctx, await current(ctx, key), why);
  return 'unfinished';
}

async function pause(ctx: RunContext, ms: number): Promise<void> {
  await ctx.clock.sleep(ms, ctx.stop.controller.signal).catch(() => undefined);
}
