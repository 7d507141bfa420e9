import pLimit, { type LimitFunction } from 'p-limit';
import type { ServiceClient } from '../api/index.js';
import type { Plan, PlannedJob } from '../plan/types.js';
import type { JobStatus, NewJob, StateStore } from '../state/index.js';
import { systemClock, type Clock } from '../util/clock.js';
import type { Random } from '../util/random.js';
import { BudgetLedger, type Overrun } from './budget-ledger.js';
import { deferred, type Deferred } from './deferred.js';
import { driveJob, type JobOutcome } from './drive-job.js';
import { failAlone } from './fail-alone.js';
import { noKill, type KillHook } from './kill-hook.js';
import { AdaptiveRateLimiter } from './rate-limiter.js';
import { StopState, type RunContext } from './run-context.js';
import { RunEvents, type StopReason } from './run-events.js';
import type { ResolvedRunOptions } from './run-options.js';
import { Tracker } from './tracker.js';

export interface RunDeps {
  store: StateStore;
  client: ServiceClient;
  /** @default systemClock */
  clock?: Clock;
  /** @default Math.random */
  random?: Random;
  /** @default noKill (the test-only hook is off) */
  kill?: KillHook;
  /** @default a new RunEvents */
  events?: RunEvents;
  /** @default a new StopState; the CLI shares it with its signal handlers */
  stop?: StopState;
  /** @default a limiter at options.ratePerSecond; the CLI shares it with the client's retry observer */
  limiter?: AdaptiveRateLimiter;
  /** The webhook_url to give jobs that take one. @default none */
  webhookUrl?: string | null;
  /** Called with the tracker once it exists (the webhook receiver feeds it hints). */
  onTracker?: (tracker: Tracker) => void;
}

/** What a run did, for the summary, the exit code and the tests. */
export interface RunResult {
  /** Jobs of the plan per status, after the run. */
  counts: Partial<Record<JobStatus, number>>;
  /** Jobs not submitted because a job they need failed. */
  blocked: string[];
  /** Jobs left in doubt (cannot be reconciled). */
  heldInDoubt: string[];
  /** Finished jobs whose files could not all be fetched. */
  undownloaded: string[];
  stop: StopReason | null;
  stopMessage: string | null;
  /**
   * `used`: what the service reported; `spent`: what the ledger counts against the cap (a cost not
   * reported counts as its reservation); `overruns`: jobs whose real cost passed their estimate.
   */
  credits: { estimated: number; used: number; spent: number; cap: number | null; overruns: Overrun[] };
  requests: { reads: number };
  outcomes: Map<string, JobOutcome>;
}

/** The plan's jobs as the state database first records them. */
export function toNewJobs(plan: Plan): NewJob[] {
  return plan.jobs.map((job) => ({
    key: job.key,
    step: job.step,
    kind: job.kind,
    outputName: job.outputName,
    request: job.request,
    pathId: job.pathId ?? null,
    creditsEstimated: job.credits?.expected ?? null,
  }));
}

/**
 * Runs a plan to its end in this process: records it, recovers what an earlier run left half
 * done, then drives every job (dependencies first, within the concurrency limits) and returns
 * what happened. Never throws for a job's failure; the caller turns the result into an exit code.
 */
export async function executePlan(plan: Plan, deps: RunDeps, options: ResolvedRunOptions): Promise<RunResult> {
  // Recording the plan also scopes the store to this manifest: every read below is of its jobs.
  deps.store.syncPlan(plan.manifestPath, toNewJobs(plan));
  const ctx = buildContext(plan, deps, options);
  recoverInterrupted(ctx, plan);
  if (options.resubmitInDoubt) {
    for (const row of ctx.store.jobsWithStatus(['in_doubt'])) if (ctx.planned.has(row.key)) ctx.resubmit.add(row.key);
  }
  const tracker = new Tracker(ctx);
  deps.onTracker?.(tracker);
  const ready = new Map(plan.jobs.map((job) => [job.key, deferred<JobOutcome>()]));
  const needs = dependencies(plan);
  const slots = slotsFor(plan, options);
  const downloads = pLimit(options.downloadConcurrency);
  const deadline = watchDeadline(ctx, tracker);
  const outcomes = new Map<string, JobOutcome>();
  // allSettled, and each job catches its own errors: one job's failure never ends the run while
  // other POSTs are on the wire (their answers decide what is paid for).
  await Promise.allSettled(
    plan.jobs.map(async (job) => {
      const outcome = await runOne(ctx, job, needs.get(job.key) ?? [], ready, {
        tracker,
        inSlot: slots(job),
        inDownloadSlot: (fn) => downloads(fn),
        ready: ready.get(job.key)!,
      });
      outcomes.set(job.key, outcome);
    }),
  );
  // Every read still on the wire settles (and is committed) before the caller closes anything.
  await tracker.settled();
  deadline.cancel();
  return summarise(ctx, plan, outcomes, tracker);
}

function buildContext(plan: Plan, deps: RunDeps, options: ResolvedRunOptions): RunContext {
  const clock = deps.clock ?? systemClock;
  const rows = deps.store.jobs(plan.jobs.map((j) => j.key));
  return {
    store: deps.store,
    client: deps.client,
    clock,
    random: deps.random ?? Math.random,
    limiter: deps.limiter ?? new AdaptiveRateLimiter({ ratePerSecond: options.ratePerSecond, clock }),
    webhookUrl: deps.webhookUrl ?? null,
    ledger: new BudgetLedger({ cap: options.maxCredits, jobs: rows }),
    events: deps.events ?? new RunEvents(),
    kill: deps.kill ?? noKill,
    options,
    outputsDir: plan.outputsDir,
    planned: new Map(plan.jobs.map((job) => [job.key, job])),
    stop: deps.stop ?? new StopState(),
    resubmit: new Set<string>(),
  };
}

/**
 * A job found `submitting` at start-up was being POSTed when an earlier run died: its intent is
 * committed, its answer is not. It may exist remotely, so it is in doubt, never simply resent.
 */
function recoverInterrupted(ctx: RunContext, plan: Plan): void {
  const keys = new Set(plan.jobs.map((j) => j.key));
  const orphans = ctx.store.jobsWithStatus(['submitting']).filter((row) => keys.has(row.key));
  ctx.store.durably(() => {
    for (const row of orphans) {
      const attempt = ctx.store.lastAttempt(row.key);
      if (attempt?.state === 'intent') ctx.store.closeAttempt(attempt.id, 'in_doubt', { error: 'the run ended before the answer was recorded' });
      const message = 'found submitting at start-up: an earlier run died mid-POST';
      ctx.store.transition(row.key, 'in_doubt', { doubtReason: message }, 'job:in-doubt', { message });
    }
  });
}

/** What each job waits for: the jobs its references bind to, and every job of the steps it `needs`. */
function dependencies(plan: Plan): Map<string, string[]> {
  const byStep = new Map<string, string[]>();
  for (const job of plan.jobs) byStep.set(job.step, [...(byStep.get(job.step) ?? []), job.key]);
  const needsOf = new Map(plan.steps.map((s) => [s.id, s.needs]));
  return new Map(
    plan.jobs.map((job) => {
      const fromSteps = (needsOf.get(job.step) ?? []).flatMap((step) => byStep.get(step) ?? []);
      return [job.key, [...new Set([...job.refs.map((r) => r.jobKey), ...fromSteps])]];
    }),
  );
}

/** Global and per-kind limits: a job takes its kind's slot first, so a full kind never holds a global one. */
function slotsFor(plan: Plan, options: ResolvedRunOptions): (job: PlannedJob) => <T>(fn: () => Promise<T>) => Promise<T> {
  const global = pLimit(options.concurrency);
  const perKind = new Map<string, LimitFunction>();
  for (const [kind, n] of Object.entries(plan.kindConcurrency)) if (n) perKind.set(kind, pLimit(n));
  return (job) => {
    const kindLimit = perKind.get(job.kind);
    return (fn) => (kindLimit ? kindLimit(() => global(fn)) : global(fn));
  };
}

async function runOne(
  ctx: RunContext,
  job: PlannedJob,
  needs: string[],
  ready: Map<string, Deferred<JobOutcome>>,
  hooks: Parameters<typeof driveJob>[2],
): Promise<JobOutcome> {
  const upstream = await Promise.all(needs.map((key) => ready.get(key)?.promise ?? Promise.resolve<JobOutcome>('ok')));
  const blocked = upstream.find((outcome) => outcome !== 'ok');
  if (blocked) {
    hooks.ready.resolve(blocked);
    return blocked === 'failed' ? 'failed' : 'unfinished';
  }
  try {
    return await driveJob(ctx, job.key, hooks);
  } catch (error) {
    const outcome = failAlone(ctx, job.key, error);
    // Dependents wait on this: a job that threw is unfinished for them too (a no-op if already ready).
    hooks.ready.resolve(outcome);
    return outcome;
  }
}

/** `--max-wait`: after it, stop everything and leave the rest to a later run. */
function watchDeadline(ctx: RunContext, tracker: Tracker): { cancel: () => void } {
  if (ctx.options.maxWaitMs === null) return { cancel: () => undefined };
  const controller = new AbortController();
  ctx.clock
    .sleep(ctx.options.maxWaitMs, AbortSignal.any([controller.signal, ctx.stop.controller.signal]))
    .then(() => {
      const message = `--max-wait of ${ctx.options.maxWaitMs} ms reached`;
      if (ctx.stop.stop('deadline', message)) ctx.events.emit('run:stopping', { reason: 'deadline', message });
      tracker.halt();
    })
    .catch(() => undefined);
  return { cancel: () => controller.abort() };
}

function summarise(ctx: RunContext, plan: Plan, outcomes: Map<string, JobOutcome>, tracker: Tracker): RunResult {
  const rows = ctx.store.jobs(plan.jobs.map((j) => j.key));
  const counts: Partial<Record<JobStatus, number>> = {};
  for (const row of rows) counts[row.status] = (counts[row.status] ?? 0) + 1;
  return {
    counts,
    // Still planned, yet its outcome is failed: something it needs failed, so it never started.
    blocked: rows.filter((r) => r.status === 'planned' && outcomes.get(r.key) === 'failed').map((r) => r.key),
    heldInDoubt: rows.filter((r) => r.status === 'in_doubt').map((r) => r.key),
    undownloaded: rows.filter((r) => r.status === 'done').map((r) => r.key),
    stop: ctx.stop.reason,
    stopMessage: ctx.stop.message,
    credits: {
      estimated: plan.jobs.reduce((sum, job) => sum + (job.credits?.expected ?? 0), 0),
      used: rows.reduce((sum, row) => sum + (row.creditsUsed ?? 0) + row.creditsPrior, 0),
      spent: ctx.ledger.spent,
      cap: ctx.ledger.cap,
      overruns: [...ctx.ledger.overruns],
    },
    requests: { reads: tracker.reads },
    outcomes,
  };
}
