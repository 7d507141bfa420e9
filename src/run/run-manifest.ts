import { thisHost } from '../util/host-name.js';
import { clientFromEnv, type ServiceClient } from '../api/index.js';
import { LocalFaultError, LockedError, StateBusyError, UsageError, type ReelpipeError } from '../errors.js';
import { loadManifest, type Manifest } from '../manifest/index.js';
import { assertBudget, budgetView, jobsWhere, keysOf, makesHtmlAds, SANDBOX_OUTPUTS_SUFFIX, scopedJobs, type Plan } from '../plan/index.js';
import { acquireLock, acquireLockWaiting, joinLiveRun, markRunFolder, seeRunFolder, RunTermsError, type HeldLock, checkOutputs, claimOutputs, isLocalFault, resolveStatePath, stateAt, stateFiles, openStore as openStateStore, type StateFiles, type Store } from '../state/index.js';
import { systemClock, type Clock } from '../util/clock.js';
import { plural } from '../util/format.js';
import { createLogger, type Logger } from '../util/logger.js';
import { readRunHistory } from '../report/run-history.js';
import { formatDuration } from '../util/time-format.js';
import { executePlan, type ReceiverLink, type RunDeps, type RunResult } from './execute-plan.js';
import { killHookFromEnv } from './kill-hook.js';
import { openService, resolveSandbox, sandboxRuns, standaloneSandboxClient, type SandboxChoice, type SandboxTarget } from './open-service.js';
import { runOutcome } from './outcome.js';
import { recordEarlyRefusal, refusalOf } from './refusals.js';
import { adoptIdentity } from './adopt-identity.js';
import { AccountRate } from './submit/account-rate.js';
import { limiterFor, type AdaptiveRateLimiter } from './submit/rate-limiter.js';
import { observeRateLimits } from './submit/retry-observer.js';
import { StopState } from './run-context.js';
import { Members } from './members.js';
import { runTerms, termsDifference } from './run-terms.js';
import type { PreviousRun, RunEvents } from './run-events.js';
import { resolveRunOptions, type ResolvedRunOptions, type RunOptions } from './run-options.js';
import { selectSteps } from './select-steps.js';
import { planForRun } from './live-styles.js';
import { checkSavedPlan, readSavedPlan } from './saved-plan-file.js';
import { ownWebhookUrlWarnings } from './submit/own-webhook-urls.js';
import { checkHookEnv } from './hooks/check-hook-env.js';
import { OutputHooks } from './hooks/output-hooks.js';
import { startWebhookReceiver, type Delivery } from './track/webhook-receiver.js';

export { DEFAULT_SANDBOX_SPEED } from './defaults.js';

export interface RunManifestInput extends RunOptions {
  manifestFile: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /**
   * @default state/reelpipe.db in the manifest's project (state/sandbox.db with an embedded
   * `sandbox`, state/sandbox-HOST-PORT.db with a standalone one): see state/locate.ts
   */
  statePath?: string;
  /**
   * Run against a sandbox instead of the service: an embedded one at this speed, or the standalone
   * one at this address (its speed read from its /__sandbox/stats before anything is sent).
   * @default off
   */
  sandbox?: SandboxChoice;
  /** Progress lines go here (the CLI: stderr). */
  progress: RunEvents;
  /** Shared with signal handlers. @default a new StopState */
  stop?: StopState;
  /** @default systemClock */
  clock?: Clock;
  /**
   * On a state several processes share (PostgreSQL), join the live run of the manifest as a member
   * (members.ts) instead of exiting 75: `reelpipe run` does; `retry`, which resets jobs first, does not.
   * @default false
   */
  join?: boolean;
  /** Runs after the lock is taken and the plan recorded, before any job moves (`retry` resets jobs here). */
  prepare?: (store: Store, plan: Plan) => Promise<void>;
  /**
   * Opens the run's log once the run has its id; the client logs through it, and it is closed
   * when the run ends. @default none: the client logs JSON to stderr (createLogger)
   */
  openLog?: (run: { id: number; files: StateFiles }) => { file: string; logger: Logger; close(): void };
}

export interface RunManifestOutput {
  /** The jobs this run was given: the manifest's, or the `--step` selection's. */
  plan: Plan;
  /** Every job of the manifest (the report covers them all, whatever was selected). */
  manifestPlan: Plan;
  /** The manifest as loaded (its end-of-run hook and notifications run after the report). */
  manifest: Manifest;
  /** The run's row in the state database. */
  runId: number | null;
  result: RunResult;
  /** The state database the run used (the report is read from it). */
  statePath: string;
  elapsedMs: number;
  /** Why the run did not exit 0, or undefined. */
  error: ReelpipeError | undefined;
}

/**
 * `reelpipe run`, minus the flags: plan → state (found from the manifest) → budget gate and the
 * outputs folder's owner → lock → styles check → submit, track, download. Nothing is sent before
 * every check has passed. Everything it opens (state, lock, client, sandbox, webhook receiver) is
 * closed on the way out, whatever happens, and the run's row records how it ended.
 */
export async function runManifest(input: RunManifestInput): Promise<RunManifestOutput> {
  const clock = input.clock ?? systemClock;
  const stop = input.stop ?? new StopState();
  const started = clock.now();
  // A start refused here (input that does not validate, the budget gate) is recorded as refused
  // in the database the run would have used, when that exists (run/refusals.ts).
  const { manifest, manifestPlan, plan, statePath, options, sandbox } = await checkBeforeStart(input).catch(async (error: unknown) => {
    const choice = { manifestFile: input.manifestFile, cwd: input.cwd, env: input.env, statePath: input.statePath, sandbox: sandboxRuns(input.sandbox) };
    await recordEarlyRefusal(choice, error, clock);
    throw error;
  });
  const store = (await openStore(statePath, clock)).useManifest(plan.manifestId);
  const closers: (() => Promise<void> | void)[] = [() => store.close()];
  // Until the plan is driven, an error refuses the start (the lock, credentials, the live styles…).
  let driving = false;
  try {
    // A folder another state database filled is refused: running would pay for its jobs again.
    claimOutputs(plan.outputsDir, plan.manifestId, await store.identity(statePath));
    // Read before this run's row is added: what the header says this run resumes.
    const { previous, from } = await previousRun(statePath, plan.manifestId);
    // The run row first, so the lock (and a refused run's message) names the run holding it.
    const runId = await store.startRun(thisHost(), process.pid, options.maxCredits, manifest.file);
    const files = stateFiles(manifest.file, statePath);
    const log = input.openLog?.({ id: runId, files });
    if (log) closers.unshift(() => log.close());
    input.progress.emit('run:started', {
      runId, manifest: plan.manifestPath, statePath, logFile: log?.file ?? null, jobs: plan.totals.jobs, steps: plan.steps.length,
      expectedCredits: plan.totals.credits?.expected ?? null, unknownJobs: plan.totals.unknownJobs, maxCredits: options.maxCredits,
      concurrency: options.concurrency, sandbox: sandbox !== undefined, previous,
    });
    await sayMoved(store, input.progress, plan.manifestId, manifest.file, from);
    const held: Held = { store, statePath, files, clock, stop, closers, outputHooks: OutputHooks.of(manifest, input.env), ...(sandbox ? { sandbox } : {}), ...(log ? { logger: log.logger } : {}) };
    const deps = await startLocked(input, plan, options, held);
    driving = true;
    const result = await executePlan(plan, deps, options);
    // A member that does not end a shared run exits 0 unless it stopped itself: the one that ends it reports the run's outcome.
    const error = result.endsRun || result.stop !== null ? runOutcome(result, input.manifestFile, (key) => result.labels.get(key)) : undefined;
    await finish(store, input.progress, error?.code ?? 'OK', { counts: result.counts, credits: result.credits });
    return { plan, manifestPlan, manifest, runId, result, statePath, elapsedMs: clock.now() - started, error };
  } catch (error) {
    // A database another process holds (StateBusyError) would keep this record waiting as long again.
    if (!(error instanceof StateBusyError)) await finish(store, input.progress, (error as ReelpipeError).code ?? 'INTERNAL', {}, driving ? null : refusalOf(error, input.env));
    throw isLocalFault(error) ? new LocalFaultError(`the state database ${statePath} could not be written: ${(error as Error).message}`, { cause: error }) : error;
  } finally {
    await closeAll(closers);
  }
}

/**
 * Every check made before the state database is opened for writing, in the order `plan` gives its
 * verdicts: the manifest and its data files, the hooks' environment, the outputs folder's owner,
 * the `--step` selection, the options, the budget gate.
 */
async function checkBeforeStart(input: RunManifestInput): Promise<{ manifest: Manifest; manifestPlan: Plan; plan: Plan; statePath: string; options: ResolvedRunOptions; sandbox: SandboxTarget | undefined }> {
  const manifest = await loadManifest(input.manifestFile, { env: input.env, cwd: input.cwd });
  checkHookEnv(manifest, input.env);
  const sandboxUrl = input.sandbox && 'url' in input.sandbox ? input.sandbox.url : undefined;
  const statePath = resolveStatePath(manifest.file, { cwd: input.cwd, statePath: input.statePath, sandbox: sandboxRuns(input.sandbox) });
  input.progress.emit('run:note', { message: `state: ${statePath}` });
  // Rows an older reelpipe keyed by the manifest's path become its identity's, before any is read.
  await adoptIdentity(statePath, { id: manifest.identity, path: manifest.file }, (message) => input.progress.emit('run:note', { message }), input.clock);
  // The outputs folder's owner first, read-only, in the order `plan` gives its verdicts: a budget
  // weighed against the wrong (or an emptied) database means nothing, and it is left unwritten.
  checkOutputs(input.sandbox ? `${manifest.outputsDir}${SANDBOX_OUTPUTS_SUFFIX}` : manifest.outputsDir, await stateAt(statePath).identity(manifest.identity));
  // A standalone sandbox is asked its speed (and refused if it is none) before anything is sent.
  const sandbox = input.sandbox && (await resolveSandbox(input.sandbox));
  const saved = input.planFile === undefined ? undefined : await readSavedPlan(input.planFile);
  // A saved plan of some steps is run as it was saved: its steps are the selection.
  const steps = saved && saved.steps.length < manifest.steps.length ? saved.steps : input.steps;
  // Each job's status, read only where planning asks it: a selection, a saved plan, HTML ads (is one still to send?).
  // Any other run would read every job's row for nothing (0.24 s at 100,000 jobs).
  const asked = saved !== undefined || (steps?.length ?? 0) > 0 || makesHtmlAds(manifest);
  const statuses = asked ? await stateAt(statePath).jobStatuses(manifest.identity) : new Map<string, string>();
  const { whole: manifestPlan, plan } = await planForRun({
    manifest, clock: input.clock ?? systemClock, progress: input.progress, statusOf: (key) => statuses.get(key),
    // The service whose catalogue counts: the standalone sandbox's, the real one's; the embedded sandbox's is its own.
    client: () => (sandboxUrl === undefined ? clientFromEnv(input.env) : standaloneSandboxClient(sandboxUrl, input.env)),
    statePath, sandbox: input.sandbox !== undefined, embedded: sandbox !== undefined && sandboxUrl === undefined,
    service: sandboxUrl ?? (input.env.REELPIPE_BASE_URL?.trim() || undefined),
    ...(input.maxCredits === undefined || input.maxCredits === null ? {} : { maxCredits: input.maxCredits }),
    select: (whole) => selected(whole, steps, (key) => statuses.get(key)),
  });
  if (plan !== manifestPlan) input.progress.emit('run:note', { message: `--step: ${plural(plan.jobs.length, 'job')} of step ${plan.steps.map((s) => s.id).join(', ')} (of ${plural(manifestPlan.jobs.length, 'job')} in the manifest)` });
  if (saved) await checkSavedPlan(saved, input.planFile as string, manifest, plan, (key) => statuses.get(key), input.progress);
  const options = resolveRunOptions(
    { ...input, timeScale: input.timeScale ?? (sandbox ? 1 / sandbox.speed : 1) },
    { concurrency: plan.concurrency, maxCredits: plan.budget.maxCredits },
    input.env,
  );
  if (sandbox?.url !== undefined) input.progress.emit('run:note', { message: standaloneNote(sandbox.url, sandbox.speed, options.timeScale, input.timeScale !== undefined) });
  // The one budget gate, before anything is created, locked or sent: what is still to submit,
  // weighed against what the database says is spent or held — the same verdict `plan` prints.
  // Without a cap the verdict is "no cap" whatever was spent or is to submit: neither the money
  // read nor a pass over the plan's jobs for it (a streamed plan makes them again: 0.7 s at 100,000).
  if (options.maxCredits !== null) {
    const recorded = await stateAt(statePath).jobMoney(manifestPlan.manifestId, scopedJobs(manifestPlan));
    assertBudget(plan, budgetView(plan, options.maxCredits, recorded));
  }
  if (options.webhook) for (const message of ownWebhookUrlWarnings(manifest, plan)) input.progress.emit('run:note', { message });
  return { manifest, manifestPlan, plan, statePath, options, sandbox };
}

interface Held {
  store: Store;
  statePath: string;
  files: StateFiles;
  clock: Clock;
  stop: StopState;
  closers: (() => Promise<void> | void)[];
  outputHooks: OutputHooks | null;
  /** The sandbox the run talks to, if any. */
  sandbox?: SandboxTarget;
  /** The run log's logger, when the caller keeps one. */
  logger?: Logger;
}

/** Takes the lock and connects: what executing the plan needs, once nothing refuses the start. */
async function startLocked(input: RunManifestInput, plan: Plan, options: ResolvedRunOptions, held: Held): Promise<RunDeps> {
  const { store, clock, stop, closers } = held;
  const halt = (reason: 'lock-lost' | 'local-fault' | 'state-held', message: string) => {
    if (stop.stop(reason, message)) input.progress.emit('run:stopping', { reason, message });
  };
  const terms = runTerms(plan, options);
  const lock = await lockOrJoin(store, input.join === true, options.maxCredits, terms, plan, {
    name: plan.manifestId,
    onLost: () => halt('lock-lost', `the lock on ${plan.manifestId} was taken by another run (this run's heartbeat looked stale)`),
    onFault: (error) => (error instanceof StateBusyError ? halt('state-held', error.held) : halt('local-fault', `the state database ${held.statePath} could not be written (${error.message}); nothing more can be recorded safely`)),
    waitMs: options.waitForLockMs,
    staleAfterMs: options.leaseMs,
    heartbeatMs: options.leaseMs / 6,
    signal: stop.controller.signal,
    onWait: (refusal) => input.progress.emit('run:note', { message: `${refusal.message}; waiting up to ${formatDuration(options.waitForLockMs)} for it (--wait-for-lock)` }),
  });
  closers.unshift(() => lock.release());
  // The first member records what the members joining its run must run alike (run-terms.ts),
  // and names its run in the outputs folder, which a member joining must see (run-folder.ts).
  if (store.members !== null && !lock.joined && store.runId !== null) markRunFolder(plan.outputsDir, plan.manifestId, { run: store.runId, host: thisHost() });
  if (!lock.joined) await store.members?.declare(terms);
  if (lock.joined) await seeRunFolder(plan.outputsDir, plan.manifestId, lock.joined, options.leaseMs, clock, stop.controller.signal);
  if (lock.joined) input.progress.emit('run:note', { message: `joined run ${lock.joined.runId} of ${plan.manifestId}, started on ${lock.joined.host}: this host claims its share of the jobs (reelpipe hosts lists the members)` });
  await input.prepare?.(store, plan);
  // Said once: the account's slots (shared by every manifest on this state) bound this run below its own concurrency.
  const { concurrency: slots } = await store.account();
  if (slots !== null && options.concurrency > slots) {
    input.progress.emit('run:note', { message: `concurrency ${options.concurrency} is above the account's ${slots} slots (reelpipe account set --concurrency): at most ${slots} jobs of every manifest on this state are alive at the service at once, the others wait for a slot` });
  }
  const limiter = limiterFor(options, clock);
  // The account's rate, when it sets one, split between the live runs on the state (account-rate.ts).
  const rate = await AccountRate.start(store, limiter, clock, stop.controller.signal);
  if (rate) closers.unshift(() => rate.stop());
  const client = await connect(input, held, limiter, stop.requests.signal, rate);
  const receiver = options.webhook ? await startReceiver(options.webhook, store, closers) : undefined;
  return {
    store,
    client,
    clock,
    limiter,
    kill: killHookFromEnv(input.env),
    events: input.progress,
    stop,
    ...(receiver ? { receiver } : {}),
    outputHooks: held.outputHooks,
    ...(held.logger ? { logger: held.logger } : {}),
    lease: lock,
    members: Members.of(store, lock, clock, options.leaseMs, stop.controller.signal),
  };
}

/**
 * The run lock, or — on a state several processes share, for a plain `run` — membership of the
 * live run that holds it (members.ts): a second host on the same manifest shares the work
 * instead of exiting 75. Refused (75, as before) for a manifest with its own credit cap: the
 * manifest's budget is counted per process, so members could pass it together — the account's
 * cap (`reelpipe account set --max-credits`) is the one every member shares.
 */
async function lockOrJoin(store: Store, joinable: boolean, maxCredits: number | null, terms: string, plan: Plan, options: Parameters<typeof acquireLockWaiting>[1]): Promise<HeldLock> {
  if (!joinable || store.members === null) return acquireLockWaiting(store, options);
  for (let tries = 1; ; tries++) {
    try {
      return await acquireLock(store, options);
    } catch (error) {
      if (!(error instanceof LockedError) || tries > 3) throw error;
      if (maxCredits !== null) throw new LockedError(`${error.message}; this run would join it, but the manifest has its own credit cap, which members on several hosts cannot share: set the account's cap instead (reelpipe account set --state URL --max-credits N) and run without max_credits`);
      const joined = await joinLiveRun(store, options, terms).catch(async (refusal: unknown) => {
        if (!(refusal instanceof RunTermsError)) throw refusal;
        const known = new Set((await store.jobs([...keysOf(plan)])).map((row) => row.key));
        const unknown = jobsWhere(plan.jobs, (job) => !known.has(job.key)).map((job) => job.label);
        throw new UsageError(`${refusal.message}: ${termsDifference(terms, refusal.run.terms, unknown)}. Nothing was sent: run every member with the same manifest, data and options`);
      });
      if (joined) return joined;
    }
  }
}

/**
 * The manifest's newest run that started (a refused start moved nothing), as `reelpipe runs` lists
 * it, and the file and host it ran from (when its row says); null for a manifest's first run.
 */
async function previousRun(statePath: string, manifest: string): Promise<{ previous: PreviousRun | null; from: { path: string; host: string } | null }> {
  const [run] = (await readRunHistory(statePath, manifest, 1)).runs;
  if (!run || run.state === 'refused') return { previous: null, from: null };
  return { previous: { runId: run.id, state: run.state, outcome: run.outcome }, from: run.manifestPath === null ? null : { path: run.manifestPath, host: run.host } };
}

/**
 * Said once, when this run's file is not the one its manifest last ran from (another checkout,
 * another host): "NAME was last run from PATH on HOST", on the run's output and as an event
 * (`manifest:moved`). It is the same manifest — its jobs are not paid for again — but whoever reads
 * the output should know where its last run was.
 */
async function sayMoved(store: Store, events: RunEvents, identity: string, file: string, from: { path: string; host: string } | null): Promise<void> {
  if (from === null || from.path === file) return;
  events.emit('run:note', { message: `${identity} was last run from ${from.path} on ${from.host}` });
  await store.note('manifest:moved', null, { from: from.path, host: from.host, to: file });
}

/** Opens the state database; a machine that cannot (a full disk, no permission) is a local fault, exit 74. */
async function openStore(statePath: string, clock: Clock): Promise<Store> {
  try {
    return await openStateStore(statePath, clock);
  } catch (error) {
    if (isLocalFault(error)) throw new LocalFaultError(`cannot open the state database ${statePath}: ${(error as Error).message}`, { cause: error });
    throw error;
  }
}

/** A write the run's end may fail and go on: a full disk, an unwritable file, a database another process holds. */
const unrecordable = (error: unknown): boolean => isLocalFault(error) || error instanceof StateBusyError;

/** Records how the run ended, if it started; on a full disk that may fail too, and is not worth a second error. */
async function finish(store: Store, events: RunEvents, outcome: string, summary: Record<string, unknown>, refusal: string | null = null): Promise<void> {
  try {
    await store.finishRun(outcome, summary, refusal);
  } catch (error) {
    if (!unrecordable(error)) throw error;
  }
  if (store.runId !== null) events.emit('run:finished', { runId: store.runId, outcome });
}

/** Closes everything, each closer on its own: one failing (a lock row a full disk cannot delete) never skips the rest. */
async function closeAll(closers: (() => Promise<void> | void)[]): Promise<void> {
  for (const close of closers) {
    try {
      await close();
    } catch (error) {
      if (!unrecordable(error)) throw error;
    }
  }
}

/** The `--step` selection of the plan; the whole plan without one. */
function selected(plan: Plan, steps: readonly string[] | undefined, statusOf: (key: string) => string | undefined): Plan {
  return !steps || steps.length === 0 ? plan : selectSteps(plan, steps, statusOf);
}

/** `sandbox: http://… (speed 200): every wait of this run × 1/200`, said once a standalone sandbox's speed is read. */
function standaloneNote(url: string, speed: number, timeScale: number, given: boolean): string {
  return `sandbox: ${url} (speed ${speed}): every wait of this run × ${given ? `${timeScale} (--time-scale)` : `1/${speed}`}`;
}

/** The service (or a sandbox), its rate-limit answers feeding the limiter; closed with the run. */
async function connect(input: RunManifestInput, held: Held, limiter: AdaptiveRateLimiter, signal: AbortSignal, rate: AccountRate | null): Promise<ServiceClient> {
  const logger = observeRateLimits(held.logger ?? createLogger({ env: input.env }), (retryAfterMs) => {
    limiter.throttled(retryAfterMs);
    rate?.throttled(retryAfterMs);
  });
  const service = await openService({ env: input.env, ...(held.sandbox ? { sandbox: held.sandbox } : {}), files: held.files, logger, signal });
  held.closers.unshift(() => service.close());
  return service.client;
}

/**
 * The run's webhook receiver. Until the run's own desk takes over (execute-plan.ts), a delivery is
 * recorded on its attempt in the state all the same: members of a shared run may share one public
 * address, so a delivery may name another member's attempt and come before this one drives a job
 * — the service sends each once, never again, and a 404 would lose it.
 */
async function startReceiver(webhook: { listen: string; publicUrl: string }, store: Store, closers: (() => Promise<void> | void)[]): Promise<ReceiverLink> {
  let handler: (token: string, delivery: Delivery) => Promise<boolean> = async (token, delivery) => (await store.recordDelivery(token, delivery)) !== undefined;
  const receiver = await startWebhookReceiver(webhook.listen, webhook.publicUrl, (token, delivery) => handler(token, delivery));
  closers.unshift(() => receiver.close());
  return { urlFor: (token) => receiver.urlFor(token), setHandler: (fn) => (handler = fn) };
}
