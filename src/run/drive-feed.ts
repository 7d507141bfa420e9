import pLimit, { type LimitFunction } from 'p-limit';
import { keysOf } from '../plan/job-index.js';
import type { PlanIndex } from '../plan/plan-index.js';
import type { Plan, PlannedJob } from '../plan/types.js';
import type { JobStatus } from '../state/index.js';
import type { RunContext } from './run-context.js';
import type { ResolvedRunOptions } from './run-options.js';
import type { MoreJobs } from './start-in-turns.js';

/** A job given to the drive: as planned (read into the run's window), and its status as given. */
export interface DriveEntry {
  job: PlannedJob;
  status: JobStatus;
}

/**
 * How many jobs one claim takes (see driveFeed): a thousand, or twice the concurrency when that
 * is more, so the slots never wait for a claim. A member of a shared run takes twice its
 * concurrency (at least 8): small windows, so the members share the jobs (members.ts).
 */
export const claimWindow = (ctx: RunContext): number => (ctx.members ? Math.max(8, 2 * ctx.options.concurrency) : Math.max(1000, 2 * ctx.options.concurrency));

/**
 * The jobs of a drive in the order they start, as a stream for startInTurns, a window at a time
 * while few wait, each window's jobs read into the run's window (JobWindow) as it is given:
 * first `idle` — jobs found past their remote end (to download, to check, or over), which take no
 * slot — then `given` (jobs already claimed: a second pass, jobs taken over), then, with
 * `claims`, the ready ones (to send, reconcile or track) as the store hands them out
 * (Store.claim: sent first, then priority and plan order), less any given already; last, once
 * the claims run dry, any job of the plan left that is ready (to send, reconcile or track) and
 * this run claimed earlier (a claim hands a job out once a run; a member: only its own claims).
 * `claimed` hears of each claimed window first (a member's: claimedHere). `settled`: a byte a job
 * of the plan, 1 for a job settled before the drive (found finished), never given. What is held of
 * the jobs not given yet is their keys (idle, given) or nothing (the claims'), and a byte a job.
 */
export function driveFeed(
  ctx: RunContext,
  jobs: DrivePass,
  claimed: (taken: readonly DriveKey[]) => Promise<void>,
  plan: Pick<Plan, 'jobs'> & { index?: PlanIndex },
): MoreJobs<DriveEntry> {
  const window = claimWindow(ctx);
  const given = Uint8Array.from(jobs.settled);
  const isGiven = (key: string) => {
    const place = ctx.planned.ordinal(key);
    return place !== undefined && given[place] === 1;
  };
  const give = async (keys: readonly DriveKey[]): Promise<DriveEntry[]> => {
    for (const { key } of keys) {
      const place = ctx.planned.ordinal(key);
      if (place !== undefined) given[place] = 1;
    }
    return entries(ctx, keys);
  };
  let [idleAt, givenAt, claiming] = [0, 0, jobs.claims];
  const next = async (): Promise<DriveEntry[]> => {
    if (idleAt < jobs.idle.length) return give(jobs.idle.slice(idleAt, (idleAt += window)));
    if (givenAt < jobs.given.length) return give(jobs.given.slice(givenAt, (givenAt += window)));
    while (claiming) {
      const taken = await claimWanted(ctx, ctx.members !== null, (key) => !isGiven(key));
      await claimed(taken);
      if (taken.length === 0) claiming = false;
      else {
        const read = await give(taken);
        if (read.length > 0) return read;
      }
    }
    // Only a drive that claims looks for the plan's jobs left: a second pass drives what it is given.
    while (jobs.claims) {
      const keys = left.next(window);
      if (keys.length === 0) return [];
      const ready = (await ctx.store.jobs(keys)).filter((row) => needsSlot(row.status) && (!ctx.members || ctx.claimedHere.has(row.key)));
      if (ready.length > 0) return give(ready.map(({ key, status }) => ({ key, status })));
    }
    return [];
  };
  // The places not given, in plan order, a window of keys at a time (from the plan's index when it has one).
  const left = unGiven(plan, given);
  return { next, lowWater: window / 2 };
}

/** The keys of the plan's jobs not given (a 0 in `given`), in plan order, up to `n` at each call. */
function unGiven(plan: Pick<Plan, 'jobs'> & { index?: PlanIndex }, given: Uint8Array): { next(n: number): string[] } {
  const keys = keysOf(plan);
  let place = 0;
  return {
    next(n) {
      const out: string[] = [];
      while (out.length < n) {
        const key = keys.next();
        if (key.done) break;
        if (given[place++] === 0) out.push(key.value);
      }
      return out;
    },
  };
}

/** What a drive is given: the jobs found past their remote end, jobs claimed already, whether it claims, and the jobs settled before it. */
export interface DrivePass {
  idle: readonly DriveKey[];
  given: readonly DriveKey[];
  claims: boolean;
  settled: Uint8Array;
}

/** A job's key and its status as it is given to the drive. */
export interface DriveKey {
  key: string;
  status: JobStatus;
}

/** The jobs of `keys` read into the run's window, each with its status as given (a job without a record as planned is none of the plan's). */
async function entries(ctx: RunContext, keys: readonly DriveKey[]): Promise<DriveEntry[]> {
  const statuses = new Map(keys.map(({ key, status }) => [key, status]));
  return (await ctx.planned.load(keys.map(({ key }) => key))).map((job) => ({ job, status: statuses.get(job.key) as JobStatus }));
}

/**
 * A window of the store's claims (the plan's ready jobs, in ready order) less those `wanted`
 * turns down: jobs this run drives already without a claim (found finished, to download), which
 * the claim marks as this run's all the same. Claimed again while a window holds only those, so
 * an empty answer means none is left; each claim marks what it read, so this ends.
 */
export async function claimWanted(ctx: RunContext, downloads: boolean, wanted: (key: string) => boolean): Promise<{ key: string; status: JobStatus }[]> {
  for (;;) {
    const window = await ctx.store.claim(claimWindow(ctx), { downloads });
    const kept = window.filter(({ key }) => wanted(key));
    if (kept.length > 0 || window.length === 0) return kept;
  }
}

/** Found sent when the run starts: it exists (or may) at the service, and holds its capacity. */
export const isSent = (status: JobStatus | undefined) => status === 'submitted' || status === 'running' || status === 'in_doubt' || status === 'submitting';

/**
 * The rank of a job found sent, above every priority. Policy: it exists (or may) at the service
 * and holds its capacity already, so it is tracked (or reconciled) before any new job is sent,
 * whatever the new job's priority; otherwise `concurrency` new jobs could join those in flight.
 */
export const SENT_FIRST = Number.POSITIVE_INFINITY;

/** Whether a job found in this status takes a submission slot (to be sent, reconciled or tracked). */
export const needsSlot = (status: JobStatus | undefined) => status === undefined || status === 'planned' || isSent(status);

/**
 * The lane of jobs that take no slot (to download, to check, or over). Its width is a claim's
 * window: they start at once, a window's worth at a time (a finished manifest run again with
 * output hooks checks every job's files, and a job started holds its waiting calls).
 */
export const NO_SLOT_LANE = 'no slot';

/**
 * The lanes jobs that take a slot start in (see start-in-turns.ts): a kind with its own
 * concurrency has its own, so its full slots never hold back other kinds; every other job shares one.
 */
export const laneOf = (plan: Plan, job: PlannedJob): string => (plan.kindConcurrency[job.kind] ? job.kind : '');

/** How many of a lane's jobs may wait for a slot: twice the slots they wait for, so a freed slot always has a job queued for it. */
export function laneWidth(ctx: RunContext, plan: Plan, options: ResolvedRunOptions, lane: string): number {
  if (lane === NO_SLOT_LANE) return claimWindow(ctx);
  const own = lane === '' ? undefined : plan.kindConcurrency[lane as keyof Plan['kindConcurrency']];
  return 2 * Math.min(own ?? options.concurrency, options.concurrency);
}

/** Global and per-kind limits: a job takes its kind's slot first, so a full kind never holds a global one. */
export function slotsFor(plan: Plan, options: ResolvedRunOptions): (job: PlannedJob) => <T>(fn: () => Promise<T>) => Promise<T> {
  const global = pLimit(options.concurrency);
  const perKind = new Map<string, LimitFunction>();
  for (const [kind, n] of Object.entries(plan.kindConcurrency)) if (n) perKind.set(kind, pLimit(n));
  return (job) => {
    const kindLimit = perKind.get(job.kind);
    return (fn) => (kindLimit ? kindLimit(() => global(fn)) : global(fn));
  };
}
