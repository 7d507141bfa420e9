import type { JobRow } from '../state/index.js';
import type { Deferred } from './deferred.js';
import { downloadOutputs, outputsIntact } from './download-outputs.js';
import { holdInDoubt, reconcileJob } from './reconcile.js';
import type { RunContext } from './run-context.js';
import { announce, submitJob } from './submit-job.js';
import type { Tracker } from './tracker.js';

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
  /** Resolved when the remote job is finished (its result is what dependents read). */
  ready: Deferred<JobOutcome>;
}

/**
 * Carries one job from wherever the state database says it is to its end in this run:
 *
 *   in_doubt ─reconcile─▶ submitted | planned | (held: unfinished)
 *   planned ─submit─▶ submitted | done (instant kinds) | rejected | in_doubt | planned (retry later)
 *   submitted | running ─track─▶ done | failed
 *   done ─download─▶ downloaded
 *
 * The job holds a concurrency slot from submission until its remote job is finished; its
 * download runs in the separate download limit, so slow files never block new submissions.
 */
export async function driveJob(ctx: RunContext, key: string, hooks: DriveHooks): Promise<JobOutcome> {
  let row = current(ctx, key);
  if (row.status === 'failed' || row.status === 'rejected') return finish(hooks, 'failed');
  if (row.status !== 'done' && row.status !== 'downloaded') {
    const remote = await hooks.inSlot(() => untilRemoteFinished(ctx, key, hooks));
    if (remote !== 'ok') return finish(hooks, remote);
    row = current(ctx, key);
  }
  hooks.ready.resolve('ok');
  if (row.status === 'downloaded') {
    if (await outputsIntact(ctx, row)) return 'ok';
    row = ctx.store.transition(key, 'done', {}, 'job:output-missing', { message: 'an output file is missing or altered' });
  }
  if (ctx.stop.halted) return 'unfinished';
  return (await hooks.inDownloadSlot(() => downloadOutputs(ctx, row))) ? 'ok' : 'unfinished';
}

function finish(hooks: DriveHooks, outcome: JobOutcome): JobOutcome {
  hooks.ready.resolve(outcome);
  return outcome;
}

function current(ctx: RunContext, key: string): JobRow {
  const row = ctx.store.job(key);
  if (!row) throw new Error(`job ${key} vanished from the state database`);
  return row;
}

async function untilRemoteFinished(ctx: RunContext, key: string, hooks: DriveHooks): Promise<JobOutcome> {
  let notCreated = 0;
  let listFailures = 0;
  let absent = 0;
  for (;;) {
    if (ctx.stop.halted) return 'unfinished';
    const row = current(ctx, key);
    switch (row.status) {
      case 'in_doubt': {
        const result = await reconcileJob(ctx, row);
        if (result === 'held') return 'unfinished';
        if (result === 'absent' && ++absent >= MAX_ABSENT_RESUBMITS) return leaveForNextRun(ctx, key, absent);
        listFailures = result === 'list-failed' ? listFailures + 1 : 0;
        if (listFailures >= MAX_LIST_FAILURES) {
          holdInDoubt(ctx, current(ctx, key), `the ${row.kind} list failed ${listFailures} times in a row; a later run searches again`);
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
        const outcome = await hooks.tracker.track(row);
        return outcome === 'done' ? 'ok' : outcome === 'failed' ? 'failed' : 'unfinished';
      }
      case 'done':
      case 'downloaded':
        return 'ok';
      default:
        return row.status === 'failed' || row.status === 'rejected' ? 'failed' : 'unfinished';
    }
  }
}

function leaveForNextRun(ctx: RunContext, key: string, cycles: number): JobOutcome {
  const why =
    `${cycles} creating requests in a row got no usable answer and created nothing; ` +
    'not sent again in this run (the next run submits it again)';
  ctx.store.event('job:not-created', key, { message: why, deferred: true });
  announce(ctx, current(ctx, key), why);
  return 'unfinished';
}

async function pause(ctx: RunContext, ms: number): Promise<void> {
  await ctx.clock.sleep(ms, ctx.stop.controller.signal).catch(() => undefined);
}
