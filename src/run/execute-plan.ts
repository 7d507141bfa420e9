import pLimit, { type LimitFunction } from 'p-limit';
import { CREATING_CONNECTIONS, type ServiceClient } from '../api/index.js';
import { OutputFolders } from '../download/index.js';
import { jobIndex, listed, scopedJobs } from '../plan/job-index.js';
import type { ListedPlan, Plan, PlannedJob } from '../plan/types.js';
import { statusCode, statusOfCode } from '../state/job-status.js';
import type { JobStatus, NewJob, Store } from '../state/index.js';
import { systemClock, type Clock } from '../util/clock.js';
import { createLogger, type Logger } from '../util/logger.js';
import type { Random } from '../util/random.js';
import { formatDuration } from '../util/time-format.js';
import { BudgetLedger } from './budget/budget-ledger.js';
import { accountGateFor } from './submit/account-gate.js';
import { deferred, type Deferred } from './deferred.js';
import { DownloadBacklog } from './download-backlog.js';
import { dependencies, NEEDED_BY_NONE, neededJobs } from './dependencies.js';
import { watchHealth } from './service-health.js';
import { driveJob, type JobOutcome } from './drive-job.js';
import { finishedAtStart } from './outputs/download-outputs.js';
import { startInTurns, type MoreJobs } from './start-in-turns.js';
import { inReadyOrder } from './ready-order.js';
import { failAlone } from './fail-alone.js';
import { watchHaltAfter } from './halt-after.js';
import { noKill, type KillHook } from './kill-hook.js';
import { HostLimiters, limiterFor, type AdaptiveRateLimiter } from './submit/rate-limiter.js';
import { StopState, type RunContext } from './run-context.js';
import { RunEvents } from './run-events.js';
import type { ResolvedRunOptions } from './run-options.js';
import { summarise, type RunResult } from './run-result.js';
import { DeliveryDesk } from './track/deliveries.js';
import { Tracker } from './track/tracker.js';
import type { Delivery } from './track/webhook-receiver.js';
import type { OutputHooks } from './hooks/output-hooks.js';
import type { Members } from './members.js';

export interface RunDeps {
  store: Store;
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
  /**
   * The run's webhook receiver, when it listens: jobs that take a webhook_url get one address per
   * attempt, and this run answers the deliveries (see track/deliveries.ts). @default none
   */
  receiver?: ReceiverLink;
  /** The manifest's output hooks (src/run/hooks/). @default none */
  outputHooks?: OutputHooks | null;
  /** The run's log; the client logs its own requests, this one the downloads. @default silent */
  logger?: Logger;
  /** The run lock's lease: no creating request starts once it ran out (HeldLock.valid). @default always valid (no lock) */
  lease?: RunContext['lease'];
  /** This process's part in a run several share (members.ts); null: it runs the manifest alone. @default null */
  members?: Members | null;
}

/** What executePlan needs of a webhook receiver: attempt addresses, and a say in its answers. */
export interface ReceiverLink {
  urlFor(token: string): string;
  setHandler(handler: (token: string, delivery: Delivery) => Promise<boolean>): void;
}

export type { RunCredits, RunResult } from './run-result.js';

/** The plan's jobs as the state database first records them. */
export function toNewJobs(plan: ListedPlan): NewJob[] {
  return plan.jobs.map((job) => ({
    key: job.key,
    step: job.step,
    kind: job.kind,
    outputName: job.outputName,
    request: job.request,
    pathId: job.pathId ?? null,
    creditsEstimated: job.credits?.expected ?? null,
    plannedItems: job.expandedFrom && Array.isArray(job.request.style_ids) ? { from: job.expandedFrom, items: job.request.style_ids.map(String) } : null,
    priority: job.priority,
  }));
}

/**
 * Runs a plan to its end in this process: records it, recovers what an earlier run left half
 * done, then drives every job (dependencies first, within the concurrency limits) and returns
 * what happened. Never throws for a job's failure; the caller turns the result into an exit code.
 */
export async function executePlan(whole: Plan, deps: RunDeps, options: ResolvedRunOptions): Promise<RunResult> {
  const plan = listed(whole);
  // Recording the plan also scopes the store to this manifest: every read below is of its jobs.
  await deps.store.syncPlan(plan.manifestId, toNewJobs(plan));
  // Every job's state and files as the run starts, read in two light queries: the budget ledger
  // and each job's first look at itself come from here, not from a query per job (a finished
  // 10,000-job manifest re-runs with two queries, not 20,000).
  const ctx = buildContext(plan, deps, options, await ledgerFor(deps.store, plan, options), await accountGateFor(deps.store, plan.manifestId, options.timeScale));
  await readStart(ctx, plan);
  if (options.resubmitInDoubt) {
    for (const row of await ctx.store.jobsWithStatus(['in_doubt'])) if (ctx.planned.get(row.key)) ctx.resubmit.add(row.key);
    // Said out loud, in the progress and the run's log: each of these may now be paid for twice.
    const n = ctx.resubmit.size;
    if (n > 0) ctx.events.emit('run:note', { message: `--resubmit-in-doubt: of the ${n} job${n === 1 ? '' : 's'} in doubt, those that cannot be searched for are sent again; each that did exist at the service is then paid for twice` });
  }
  const tracker = new Tracker(ctx);
  if (ctx.webhooks) ctx.webhooks.hint = (id, status) => void tracker.hint(id, status);
  // Each job driven that other jobs need says here when it is settled; a job without one (settled
  // as the run began, or not in this run's plan) counts as 'ok' for the jobs that need it. Why only
  // the jobs needed: a promise and its resolver per job, held to the run's end, were a tenth of
  // what a one-step run of 20,000 jobs kept per job, and nobody ever read them.
  const ready = new Map<string, Deferred<JobOutcome>>();
  const needs = dependencies(plan);
  const needed = neededJobs(needs);
  const members = ctx.members;
  // A job another member drives settles there: a member reads how it ended (members.ts).
  const upstreamOne = (k: string): Promise<JobOutcome> => {
    const here = ready.get(k)?.promise ?? Promise.resolve<JobOutcome>('ok');
    return members && !ctx.drivenHere.has(k) ? Promise.race([here, members.settled(k)]) : here;
  };
  const upstreamOf = (key: string) => async (): Promise<JobOutcome> => {
    const outcomes = await Promise.all((needs.get(key) ?? []).map(upstreamOne));
    return outcomes.find((o) => o !== 'ok') ?? 'ok';
  };
  const slots = slotsFor(plan, options);
  const downloads = pLimit(options.downloadConcurrency);
  // Twice the slots, as many as wait for a slot (laneWidth): never reached while downloads keep up.
  const backlog = new DownloadBacklog(2 * options.concurrency);
  const deadline = watchDeadline(ctx, tracker);
  const unwatchFailures = watchHaltAfter(ctx.events, ctx.stop, options.haltAfter);
  // `claims`: the jobs to drive come from the store's claims (the first drive); else they were
  // claimed already (a second pass, jobs taken over), and a claim would hand out others.
  const drive = async (jobs: readonly PlannedJob[], claims: boolean) => {
    // Before any job starts: a job may look up the jobs it needs as soon as it runs.
    for (const job of jobs) if (needed.has(job.key) && !ready.has(job.key)) ready.set(job.key, deferred<JobOutcome>());
    // Every job is waited for, and each catches its own errors: one job's failure never ends the
    // run while other POSTs are on the wire (their answers decide what is paid for).
    // Started in turns (start-in-turns.ts), in ready order (ready-order.ts): jobs already sent
    // first (they hold the service's capacity), then the rest by priority and plan order, and a
    // job that waited for the jobs it needs behind every job of its priority not started yet.
    const unseen = await ctx.store.jobs(jobs.filter((job) => !ctx.start.rows.has(job.key)).map((job) => job.key));
    // Each job's status as its drive begins, a byte in its plan place (a map of every key was held for the drive).
    const codes = new Uint8Array(plan.jobs.length);
    const place = (key: string) => ctx.planned.ordinal(key)!;
    for (const job of jobs) codes[place(job.key)] = statusCode(ctx.start.rows.get(job.key)?.status);
    for (const row of unseen) codes[place(row.key)] = statusCode(row.status);
    const statusOf = (key: string) => statusOfCode(codes[place(key)]!);
    const { first, more } = await readyStream(ctx, jobs, statusOf, claims);
    const laneOfJob = (job: PlannedJob) => (needsSlot(statusOf(job.key)) ? laneOf(plan, job) : NO_SLOT_LANE);
    const priorityOf = (job: PlannedJob) => (isSent(statusOf(job.key)) ? SENT_FIRST : job.priority);
    return startInTurns(first, laneOfJob, (lane) => laneWidth(plan, options, lane), async (job, turn) => {
      // Only a member of a shared run asks which jobs it drove itself (members.ts).
      if (members) ctx.drivenHere.add(job.key);
      const slot = slots(job);
      const waitsForJobs = (needs.get(job.key) ?? []).length > 0;
      const upstream = upstreamOf(job.key);
      await runOne(ctx, job, {
        tracker,
        // A job still to be sent waits in its slot while too many finished jobs wait for their
        // downloads (download-backlog.ts); one already sent is tracked at once.
        inSlot: (fn) => slot(async () => {
          turn.leave();
          if (!isSent(statusOf(job.key))) await backlog.room();
          return fn();
        }),
        inDownloadSlot: (fn) => {
          turn.leave();
          const started = backlog.join();
          return downloads(() => { started(); return fn(); });
        },
        ready: ready.get(job.key) ?? NEEDED_BY_NONE,
        upstream: async () => {
          if (!waitsForJobs) return upstream();
          turn.leave();
          const outcome = await upstream();
          if (outcome === 'ok') await turn.rejoin();
          return outcome;
        },
      });
    }, priorityOf, more);
  };
  // A job already downloaded, its files unchanged, is settled at once; only the others are driven.
  const open = plan.jobs.filter((job) => !finishedAtStart(ctx, job.key));
  await drive(open, true);
  // A delivery that came after its job was left in doubt (it outwaited the bound) still names the
  // job the POST made: those jobs get one more pass, which adopts them.
  if (!ctx.stop.halted) await drive(await namedByLateDeliveries(ctx, plan), false);
  // A member stays while another is busy, taking over the jobs of one that dies (members.ts).
  if (members) await stayWhileOthersWork(ctx, members, open, drive);
  // Every read still on the wire settles (and is committed) before the caller closes anything.
  await tracker.settled();
  deadline.cancel();
  unwatchFailures();
  // The last member to leave ends the run: its summary, read after every member left, is the run's.
  const endsRun = members === null || ctx.stop.reason === 'lock-lost' ? members === null : await members.leave();
  return { ...(await summarise(ctx, plan, tracker.reads, needs)), endsRun, ...(deadline.at === undefined ? {} : { deadlineAt: deadline.at }) };
}

/**
 * Every job's row as the run starts, into ctx.start (each let go once its job is driven). In a
 * function of its own: a list of them held in executePlan's frame would live as long as the run.
 */
async function readStart(ctx: RunContext, plan: ListedPlan): Promise<void> {
  const planned = new Set(plan.jobs.map((j) => j.key));
  for (const row of await ctx.store.jobStates()) if (planned.has(row.key)) ctx.start.rows.set(row.key, row);
  // A job found `submitting` was being POSTed when an earlier run died: its intent is committed,
  // its answer is not. It may exist remotely, so it is in doubt, never simply resent. (Not a job
  // another member of the run holds: its POST may be on the wire. The store leaves those.)
  for (const row of await ctx.store.recoverInterrupted(planned, 'found submitting at start-up: an earlier run died mid-POST')) ctx.start.rows.set(row.key, row);
  ctx.start.outputs = await ctx.store.allOutputs();
  ctx.events.emit('run:jobs', { jobs: [...ctx.start.rows.values()], joined: ctx.members?.joined ?? false });
}

/**
 * An idle member of a shared run: while another member is busy, it claims again every poll (a
 * lapsed member's jobs come to it so) and drives what it gets; it leaves once none is busy.
 */
async function stayWhileOthersWork(ctx: RunContext, members: Members, jobs: readonly PlannedJob[], drive: (jobs: readonly PlannedJob[], claims: boolean) => Promise<void>): Promise<void> {
  // Said once per idle spell, not at every look: a look that finds nothing changes nothing.
  let idle = false;
  while (!ctx.stop.halted) {
    if (!idle && !(await members.idle(true))) return;
    idle = true;
    // Only jobs this member never drove: its own ended their drive (a download it could not finish waits for the next run).
    const taken = await claimWanted(ctx, true, (key) => !ctx.drivenHere.has(key));
    if (taken.length > 0) {
      await members.idle(false);
      idle = false;
      await claimedHere(ctx, taken);
      ctx.events.emit('run:note', { message: `took over ${taken.length === 1 ? '1 job' : `${taken.length} jobs`} of a member whose lease lapsed` });
      const keys = new Set(taken.map((t) => t.key));
      await drive(jobs.filter((job) => keys.has(job.key)), false);
      continue;
    }
    if ((await members.busy()).length === 0) return;
    if (!(await members.pause())) return;
  }
}

/**
 * Jobs a member claimed: what it read of them at its start may be old (another member, since
 * dead, moved them on), so each is read afresh when driven. Those taken over `submitting`: the
 * member that died was mid-POST; in doubt, as at a start (never simply resent).
 */
async function claimedHere(ctx: RunContext, taken: readonly { key: string; status: JobStatus }[]): Promise<void> {
  for (const { key } of taken) {
    ctx.start.rows.delete(key);
    ctx.claimedHere.add(key);
  }
  const midPost = new Set(taken.filter((t) => t.status === 'submitting').map((t) => t.key));
  if (midPost.size === 0) return;
  for (const row of await ctx.store.recoverInterrupted(midPost, 'taken over from a member of the run whose lease lapsed mid-POST')) ctx.start.rows.set(row.key, row);
}

const hostOf = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
};

/** Jobs still in doubt whose attempt a webhook delivery has named since. */
async function namedByLateDeliveries(ctx: RunContext, plan: ListedPlan): Promise<PlannedJob[]> {
  if (!ctx.webhooks) return [];
  return (await ctx.store.inDoubtNamedByDelivery()).flatMap((key) => {
    const job = ctx.planned.get(key);
    return job ? [job] : [];
  }).filter((job) => plan.jobs.includes(job));
}

/** The delivery desk answering the receiver's deliveries, when the run listens for webhooks. */
function deskFor(deps: RunDeps): DeliveryDesk | null {
  if (!deps.receiver) return null;
  const desk = new DeliveryDesk(deps.store, deps.clock ?? systemClock, (token) => deps.receiver!.urlFor(token));
  deps.receiver.setHandler((token, delivery) => desk.receive(token, delivery));
  return desk;
}

/** A run without a lock (a test driving executePlan alone): its lease never runs out. */
const NO_LEASE: RunContext['lease'] = { valid: () => true, fresh: async () => true };

/** The budget ledger at the run's start: every charge the manifest ever had counts (state/sqlite/money.ts). */
async function ledgerFor(store: Store, plan: Plan, options: ResolvedRunOptions): Promise<BudgetLedger> {
  const { totals } = await store.money(scopedJobs(plan));
  return new BudgetLedger({ cap: options.maxCredits, spent: totals.counted, held: totals.held });
}

function buildContext(plan: Plan, deps: RunDeps, options: ResolvedRunOptions, ledger: BudgetLedger, account: RunContext['account']): RunContext {
  const clock = deps.clock ?? systemClock;
  const stop = deps.stop ?? new StopState();
  const events = deps.events ?? new RunEvents();
  const limiter = deps.limiter ?? limiterFor(options, clock);
  const unreachable = (message: string) => {
    if (stop.stop('unreachable', message)) events.emit('run:stopping', { reason: 'unreachable', message });
  };
  return {
    store: deps.store,
    client: watchHealth(deps.client, clock, options.unreachableAfterMs, unreachable),
    clock,
    logger: deps.logger ?? createLogger({ level: 'silent' }),
    random: deps.random ?? Math.random,
    limiter,
    limiters: new HostLimiters(limiter, hostOf(deps.client.baseUrl), () => limiterFor(options, clock)),
    webhooks: deskFor(deps),
    ledger,
    account,
    lease: deps.lease ?? NO_LEASE,
    members: deps.members ?? null,
    drivenHere: new Set<string>(),
    claimedHere: new Set<string>(),
    events,
    kill: deps.kill ?? noKill,
    options,
    outputsDir: plan.outputsDir,
    folders: new OutputFolders(plan.outputsDir),
    planned: jobIndex(plan),
    stop,
    outputHooks: deps.outputHooks ?? null,
    resubmit: new Set<string>(),
    retriesOf: retriesOf(plan, options),
    creating: pLimit(CREATING_CONNECTIONS),
    start: { rows: new Map(), outputs: new Map() },
  };
}

/** `--retries` over every step's own `retries` (the step's, else the manifest's). */
function retriesOf(plan: Plan, options: ResolvedRunOptions): (step: string) => number {
  const byStep = new Map(plan.steps.map((step) => [step.id, step.retries]));
  return (step) => options.retries ?? byStep.get(step) ?? 0;
}

/**
 * How many jobs one claim takes (see readyStream): a thousand, or twice the concurrency when that
 * is more, so the slots never wait for a claim. A member of a shared run takes twice its
 * concurrency (at least 8): small windows, so the members share the jobs (members.ts).
 */
const claimWindow = (ctx: RunContext): number => (ctx.members ? Math.max(8, 2 * ctx.options.concurrency) : Math.max(1000, 2 * ctx.options.concurrency));

/**
 * `jobs` in the order they start, as a stream for startInTurns: first the ones that take no slot
 * (to download, to check, or over), by priority; then, with `claims`, the ready ones (to send,
 * reconcile or track) as the store hands them out (Store.claim: sent first, then priority and
 * plan order), a window at a time while few wait; last, once the claims run dry (or without
 * them), any ready job of `jobs` this run claimed earlier, in ready order.
 */
async function readyStream(ctx: RunContext, jobs: readonly PlannedJob[], statusOf: (key: string) => JobStatus | undefined, claims: boolean): Promise<{ first: PlannedJob[]; more: MoreJobs<PlannedJob> }> {
  const left = new Set(jobs.map((job) => job.key));
  const give = (list: PlannedJob[]) => {
    for (const job of list) left.delete(job.key);
    return list;
  };
  // Another member's jobs are its own to drive, download or check (members.ts).
  const others = ctx.members ? await ctx.members.heldByOthers() : new Set<string>();
  const idle = give(inReadyOrder(jobs.filter((job) => !needsSlot(statusOf(job.key)) && !others.has(job.key)), (job) => job.priority));
  let claiming = claims;
  const next = async (): Promise<PlannedJob[]> => {
    if (claiming) {
      const window = await claimWanted(ctx, ctx.members !== null, (key) => left.has(key));
      if (ctx.members) await claimedHere(ctx, window);
      if (window.length > 0) return give(window.map(({ key }) => ctx.planned.get(key) as PlannedJob));
      claiming = false;
    }
    // A member's second pass is over the jobs it claimed itself: the others' are theirs, or settled.
    return give(inReadyOrder([...left].filter((key) => !ctx.members || ctx.claimedHere.has(key)).map((key) => ctx.planned.get(key) as PlannedJob), (job) => job.priority));
  };
  return { first: [...idle, ...(await next())], more: { next, lowWater: claimWindow(ctx) / 2 } };
}

/**
 * A window of the store's claims (the plan's ready jobs, in ready order) less those `wanted`
 * turns down: jobs this run drives already without a claim (found finished, to download), which
 * the claim marks as this run's all the same. Claimed again while a window holds only those, so
 * an empty answer means none is left; each claim marks what it read, so this ends.
 */
async function claimWanted(ctx: RunContext, downloads: boolean, wanted: (key: string) => boolean): Promise<{ key: string; status: JobStatus }[]> {
  for (;;) {
    const window = await ctx.store.claim(claimWindow(ctx), { downloads });
    const kept = window.filter(({ key }) => wanted(key));
    if (kept.length > 0 || window.length === 0) return kept;
  }
}

/** Found sent when the run starts: it exists (or may) at the service, and holds its capacity. */
const isSent = (status: JobStatus | undefined) => status === 'submitted' || status === 'running' || status === 'in_doubt' || status === 'submitting';
/**
 * The rank of a job found sent, above every priority. Policy: it exists (or may) at the service
 * and holds its capacity already, so it is tracked (or reconciled) before any new job is sent,
 * whatever the new job's priority; otherwise `concurrency` new jobs could join those in flight.
 */
const SENT_FIRST = Number.POSITIVE_INFINITY;
/** Whether a job found in this status takes a submission slot (to be sent, reconciled or tracked). */
const needsSlot = (status: JobStatus | undefined) => status === undefined || status === 'planned' || isSent(status);

/** The lane of jobs that take no slot (to download, to check, or over): they all start at once, as before. */
const NO_SLOT_LANE = 'no slot';

/**
 * The lanes jobs that take a slot start in (see start-in-turns.ts): a kind with its own
 * concurrency has its own, so its full slots never hold back other kinds; every other job shares one.
 */
const laneOf = (plan: Plan, job: PlannedJob): string => (plan.kindConcurrency[job.kind] ? job.kind : '');

/** How many of a lane's jobs may wait for a slot: twice the slots they wait for, so a freed slot always has a job queued for it. */
function laneWidth(plan: Plan, options: ResolvedRunOptions, lane: string): number {
  if (lane === NO_SLOT_LANE) return Infinity;
  const own = lane === '' ? undefined : plan.kindConcurrency[lane as keyof Plan['kindConcurrency']];
  return 2 * Math.min(own ?? options.concurrency, options.concurrency);
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

async function runOne(ctx: RunContext, job: PlannedJob, hooks: Parameters<typeof driveJob>[2]): Promise<JobOutcome> {
  try {
    return await driveJob(ctx, job.key, hooks);
  } catch (error) {
    const outcome = await failAlone(ctx, job.key, error);
    // Dependents wait on this: a job that threw is unfinished for them too (a no-op if already ready).
    hooks.ready.resolve(outcome);
    return outcome;
  }
}

/** `--max-wait`: after it, stop everything and leave the rest to a later run. */
function watchDeadline(ctx: RunContext, tracker: Tracker): { cancel: () => void; at: number | undefined } {
  if (ctx.options.maxWaitMs === null) return { cancel: () => undefined, at: undefined };
  const controller = new AbortController();
  const at = ctx.clock.now() + ctx.options.maxWaitMs;
  ctx.clock
    .sleep(ctx.options.maxWaitMs, AbortSignal.any([controller.signal, ctx.stop.controller.signal]))
    .then(() => {
      const message = `--max-wait of ${formatDuration(ctx.options.maxWaitMs ?? 0)} reached`;
      if (ctx.stop.stop('deadline', message)) ctx.events.emit('run:stopping', { reason: 'deadline', message });
      tracker.halt();
    })
    .catch(() => undefined);
  return { cancel: () => controller.abort(), at };
}
