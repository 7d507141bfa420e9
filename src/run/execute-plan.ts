import pLimit from 'p-limit';
import { CREATING_CONNECTIONS, type ServiceClient } from '../api/index.js';
import { OutputFolders } from '../download/index.js';
import { scopedJobs } from '../plan/job-index.js';
import { planFeed, toNewJob } from '../plan/planned-record.js';
import type { Plan, PlannedJob } from '../plan/types.js';
import { jobStatePages, type JobStatus, type NewJob, type Store } from '../state/index.js';
import { systemClock, type Clock } from '../util/clock.js';
import { createLogger, type Logger } from '../util/logger.js';
import type { Random } from '../util/random.js';
import { formatDuration } from '../util/time-format.js';
import { BudgetLedger } from './budget/budget-ledger.js';
import { accountGateFor } from './submit/account-gate.js';
import { DownloadBacklog } from './download-backlog.js';
import { claimWanted, driveFeed, isSent, laneOf, laneWidth, needsSlot, NO_SLOT_LANE, SENT_FIRST, slotsFor, type DriveEntry, type DriveKey, type DrivePass } from './drive-feed.js';
import { JobWindow } from './job-window.js';
import { watchHealth } from './service-health.js';
import { driveJob, type JobOutcome } from './drive-job.js';
import { finishedAtStart } from './outputs/download-outputs.js';
import { startInTurns } from './start-in-turns.js';
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
import { Upstreams } from './upstreams.js';

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

/** The plan's jobs as the state database first records them (each with its record as planned). */
export function toNewJobs(plan: Plan): NewJob[] {
  return Array.from(plan.jobs, toNewJob);
}

/**
 * Runs a plan to its end in this process: records it, recovers what an earlier run left half
 * done, then drives every job (dependencies first, within the concurrency limits) and returns
 * what happened. Never throws for a job's failure; the caller turns the result into an exit code.
 *
 * What it holds of the plan (issue 24): the plan's index (keys and places), a byte or two a job,
 * and the jobs it is driving — read back from the state a claimed window at a time (JobWindow),
 * each let go when its drive ends. The plan's jobs are read once, to record them.
 */
export async function executePlan(plan: Plan, deps: RunDeps, options: ResolvedRunOptions): Promise<RunResult> {
  // Recording the plan also scopes the store to this manifest: every read below is of its jobs.
  await deps.store.syncPlan(plan.manifestId, planFeed(plan));
  // Every job's state and files as the run starts, read in two light queries: the budget ledger
  // and each job's first look at itself come from here, not from a query per job (a finished
  // 10,000-job manifest re-runs with two queries, not 20,000).
  const ctx = buildContext(plan, deps, options, await ledgerFor(deps.store, plan, options), await accountGateFor(deps.store, plan.manifestId, options.timeScale));
  const members = ctx.members;
  // How each job settles, for the jobs that need it (a byte a job); a job another member drives
  // settles there: a member reads how it ended (members.ts).
  const upstreams = new Upstreams(plan, ctx.planned, members && ((key) => (ctx.drivenHere.has(key) ? null : members.settled(key))));
  // A job already downloaded, its files unchanged, is settled at once; only the others are driven.
  const settled = new Uint8Array(plan.jobs.length);
  const idle = await readStart(ctx, plan, (key) => {
    upstreams.settle(key, 'ok');
    settled[ctx.planned.ordinal(key) as number] = 1;
  });
  if (options.resubmitInDoubt) {
    for (const row of await ctx.store.jobsWithStatus(['in_doubt'])) if (ctx.planned.ordinal(row.key) !== undefined) ctx.resubmit.add(row.key);
    // Said out loud, in the progress and the run's log: each of these may now be paid for twice.
    const n = ctx.resubmit.size;
    if (n > 0) ctx.events.emit('run:note', { message: `--resubmit-in-doubt: of the ${n} job${n === 1 ? '' : 's'} in doubt, those that cannot be searched for are sent again; each that did exist at the service is then paid for twice` });
  }
  const tracker = new Tracker(ctx);
  if (ctx.webhooks) ctx.webhooks.hint = (id, status) => void tracker.hint(id, status);
  const slots = slotsFor(plan, options);
  const downloads = pLimit(options.downloadConcurrency);
  // Twice the slots, as many as wait for a slot (laneWidth): never reached while downloads keep up.
  const backlog = new DownloadBacklog(2 * options.concurrency);
  const deadline = watchDeadline(ctx, tracker);
  const unwatchFailures = watchHaltAfter(ctx.events, ctx.stop, options.haltAfter);
  // `claims`: the jobs to drive come from the store's claims (the first drive); else they were
  // claimed already (a second pass, jobs taken over), and a claim would hand out others.
  const drive = async (jobs: Omit<DrivePass, 'settled'>) => {
    // Another member's jobs are its own to drive, download or check (members.ts).
    const others = members ? await members.heldByOthers() : new Set<string>();
    const feed = driveFeed(ctx, { ...jobs, settled, idle: jobs.idle.filter(({ key }) => !others.has(key)) }, (taken) => (members ? claimedHere(ctx, taken) : Promise.resolve()), plan);
    const laneOfJob = ({ job, status }: DriveEntry) => (needsSlot(status) ? laneOf(plan, job) : NO_SLOT_LANE);
    const priorityOf = ({ job, status }: DriveEntry) => (isSent(status) ? SENT_FIRST : job.priority);
    // Every job is waited for, and each catches its own errors: one job's failure never ends the
    // run while other POSTs are on the wire (their answers decide what is paid for).
    // Started in turns (start-in-turns.ts), in ready order (ready-order.ts): jobs already sent
    // first (they hold the service's capacity), then the rest by priority and plan order, and a
    // job that waited for the jobs it needs behind every job of its priority not started yet.
    return startInTurns([], laneOfJob, (lane) => laneWidth(ctx, plan, options, lane), async ({ job, status }, turn) => {
      // Only a member of a shared run asks which jobs it drove itself (members.ts).
      if (members) ctx.drivenHere.add(job.key);
      const slot = slots(job);
      try {
        await runOne(ctx, job, {
          tracker,
          claimed: status,
          // A job still to be sent waits in its slot while too many finished jobs wait for their
          // downloads (download-backlog.ts); one already sent is tracked at once.
          inSlot: (fn) => slot(async () => {
            turn.leave();
            if (!isSent(status)) await backlog.room();
            return fn();
          }),
          inDownloadSlot: (fn) => {
            turn.leave();
            const started = backlog.join();
            return downloads(() => { started(); return fn(); });
          },
          ready: { resolve: (outcome) => upstreams.settle(job.key, outcome) },
          upstream: async () => {
            if (!upstreams.waits(job)) return 'ok';
            turn.leave();
            const outcome = await upstreams.of(job);
            if (outcome === 'ok') await turn.rejoin();
            return outcome;
          },
        });
      } finally {
        ctx.planned.release(job.key);
      }
    }, priorityOf, feed);
  };
  await drive({ idle, given: [], claims: true });
  // A delivery that came after its job was left in doubt (it outwaited the bound) still names the
  // job the POST made: those jobs get one more pass, which adopts them.
  if (!ctx.stop.halted) await drive({ idle: [], given: await namedByLateDeliveries(ctx), claims: false });
  // A member stays while another is busy, taking over the jobs of one that dies (members.ts).
  if (members) await stayWhileOthersWork(ctx, members, drive);
  // Every read still on the wire settles (and is committed) before the caller closes anything.
  await tracker.settled();
  deadline.cancel();
  unwatchFailures();
  // A local fault on a store another run can take over may be that run's doing: the lease says
  // (a beat reads the lock's token; a lock found lost stops the run as lock-lost, exit 75).
  if (ctx.stop.reason === 'local-fault') await ctx.lease.fresh().catch(() => false);
  // The last member to leave ends the run: its summary, read after every member left, is the run's.
  const endsRun = members === null || ctx.stop.reason === 'lock-lost' ? members === null : await members.leave();
  return { ...(await summarise(ctx, plan, tracker.reads)), endsRun, ...(deadline.at === undefined ? {} : { deadlineAt: deadline.at }) };
}

/** Jobs read at a time as a run starts (readStart): a page's rows and files are what it holds. */
const START_PAGE = 2_000;

/**
 * What the run starts from, read a page of jobs at a time (key order): the jobs recorded past
 * `planned` (a job found planned needs no row: its claim says so). A job found finished —
 * downloaded, its files unchanged — is settled (`settle`) and let go with its page; the others'
 * rows and files wait in ctx.start for their first look (each let go once its job is driven), and
 * those that need no slot are returned, to be driven first. A finished 100,000-job re-run holds a
 * page, where it held every job's row and files at once (~170 MB).
 */
async function readStart(ctx: RunContext, plan: Plan, settle: (key: string) => void): Promise<DriveKey[]> {
  const inPlan = { has: (key: string) => ctx.planned.ordinal(key) !== undefined };
  // A job found `submitting` was being POSTed when an earlier run died: its intent is committed,
  // its answer is not. It may exist remotely, so it is in doubt, never simply resent. (Not a job
  // another member of the run holds: its POST may be on the wire. The store leaves those.)
  await ctx.store.recoverInterrupted(inPlan, 'found submitting at start-up: an earlier run died mid-POST');
  const idle: DriveKey[] = [];
  const counts: Partial<Record<JobStatus, number>> = {};
  let found = 0;
  for await (const page of jobStatePages(ctx.store, START_PAGE, true)) {
    const rows = page.filter((row) => inPlan.has(row.key));
    ctx.events.emit('run:jobs-page', { jobs: rows });
    const outputs = await ctx.store.outputsOf(rows.map((row) => row.key));
    for (const row of rows) {
      counts[row.status] = (counts[row.status] ?? 0) + 1;
      ctx.start.rows.set(row.key, row);
      const files = outputs.get(row.key);
      if (files) ctx.start.outputs.set(row.key, files);
      if (finishedAtStart(ctx, row.key)) settle(row.key);
      else if (!needsSlot(row.status)) idle.push({ key: row.key, status: row.status });
    }
    found += rows.length;
  }
  ctx.events.emit('run:jobs', { counts, planned: plan.jobs.length - found, joined: ctx.members?.joined ?? false });
  return idle;
}

/**
 * An idle member of a shared run: while another member is busy, it claims again every poll (a
 * lapsed member's jobs come to it so) and drives what it gets; it leaves once none is busy.
 */
async function stayWhileOthersWork(ctx: RunContext, members: Members, drive: (jobs: Omit<DrivePass, 'settled'>) => Promise<void>): Promise<void> {
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
      // As they stand now (taken over mid-POST: in doubt).
      const now = new Map((await ctx.store.jobs(taken.map((t) => t.key))).map((row) => [row.key, row.status]));
      await drive({ idle: [], given: taken.map(({ key, status }) => ({ key, status: now.get(key) ?? status })), claims: false });
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

/** Jobs of the plan still in doubt whose attempt a webhook delivery has named since. */
async function namedByLateDeliveries(ctx: RunContext): Promise<DriveKey[]> {
  if (!ctx.webhooks) return [];
  return (await ctx.store.inDoubtNamedByDelivery()).filter((key) => ctx.planned.ordinal(key) !== undefined).map((key) => ({ key, status: 'in_doubt' }));
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
    planned: new JobWindow(plan, deps.store),
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
