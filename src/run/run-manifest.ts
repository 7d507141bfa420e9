import { hostname } from 'node:os';
import { clientFromEnv, createClient, type ServiceClient } from '../api/index.js';
import type { ReelpipeError } from '../errors.js';
import { loadManifest } from '../manifest/index.js';
import { assertWithinBudget, planManifest, type Plan } from '../plan/index.js';
import { renderSummary } from '../report/summary.js';
import { startSandbox, type Sandbox } from '../sandbox/index.js';
import { acquireLock, resolveStatePath, StateStore, type HeldLock } from '../state/index.js';
import { systemClock, type Clock } from '../util/clock.js';
import { createLogger } from '../util/logger.js';
import { executePlan, type RunResult } from './execute-plan.js';
import { killHookFromEnv } from './kill-hook.js';
import { runOutcome } from './outcome.js';
import { AdaptiveRateLimiter } from './rate-limiter.js';
import { observeRateLimits } from './retry-observer.js';
import { StopState } from './run-context.js';
import type { RunEvents } from './run-events.js';
import { resolveRunOptions, type RunOptions } from './run-options.js';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.js';

import { assertKnownCosts } from './budget-gate.js';
import { checkHtmlAdStyles } from './check-styles.js';

export { DEFAULT_SANDBOX_SPEED } from './defaults.js';

export interface RunManifestInput extends RunOptions {
  manifestFile: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** @default state/reelpipe.db, or state/sandbox.db with `sandbox` */
  statePath?: string;
  /** Run against an embedded sandbox at this speed instead of the service. @default off */
  sandbox?: { speed: number };
  /** Progress lines go here (the CLI: stderr). */
  progress: RunEvents;
  /** Shared with signal handlers. @default a new StopState */
  stop?: StopState;
  /** @default systemClock */
  clock?: Clock;
  /** Runs after the lock is taken and the plan recorded, before any job moves (`retry` resets jobs here). */
  prepare?: (store: StateStore, plan: Plan) => void;
}

export interface RunManifestOutput {
  plan: Plan;
  result: RunResult;
  summary: string;
  /** Why the run did not exit 0, or undefined. */
  error: ReelpipeError | undefined;
}

/**
 * `reelpipe run`, minus the flags: plan → budget gate → lock → submit, track, download → summary.
 * Everything it opens (state, lock, client, sandbox, webhook receiver) is closed on the way out,
 * whatever happens.
 */
export async function runManifest(input: RunManifestInput): Promise<RunManifestOutput> {
  const clock = input.clock ?? systemClock;
  const stop = input.stop ?? new StopState();
  const started = clock.now();
  const manifest = await loadManifest(input.manifestFile, { env: input.env, cwd: input.cwd });
  const plan = planManifest(manifest, input.maxCredits === undefined || input.maxCredits === null ? {} : { maxCredits: input.maxCredits });
  const options = resolveRunOptions(
    { ...input, timeScale: input.timeScale ?? (input.sandbox ? 1 / input.sandbox.speed : 1) },
    { concurrency: plan.concurrency, maxCredits: plan.budget.maxCredits },
  );
  // Before anything is locked or sent: a plan whose expected total is over the cap never starts.
  assertWithinBudget(plan, options.maxCredits ?? undefined);
  assertKnownCosts(plan, options.maxCredits);
  // Each manifest owns its jobs: the store reads and writes only this manifest's rows.
  const statePath = resolveStatePath(input.cwd, input.statePath, input.sandbox !== undefined);
  const store = StateStore.open(statePath, clock).useManifest(plan.manifestPath);
  const closers: (() => Promise<void> | void)[] = [() => store.close()];
  try {
    // The run row first, so the lock (and a refused run's message) names the run holding it.
    store.startRun(plan.manifestPath, hostname(), process.pid, options.maxCredits);
    const lock = takeLock(store, plan.manifestPath, () => {
      const message = `the lock on ${plan.manifestPath} was taken by another run (this run's heartbeat looked stale)`;
      if (stop.stop('lock-lost', message)) input.progress.emit('run:stopping', { reason: 'lock-lost', message });
    });
    closers.unshift(() => lock.release());
    input.prepare?.(store, plan);
    const limiter = new AdaptiveRateLimiter({ ratePerSecond: options.ratePerSecond, clock });
    const client = await connect(input, statePath, limiter, closers);
    const sent = store.jobs(plan.jobs.filter((j) => j.kind === 'html_ads').map((j) => j.key)).filter((r) => r.status !== 'planned');
    const sentKeys = new Set(sent.map((r) => r.key));
    await checkHtmlAdStyles(plan, client, input.progress, (key) => !sentKeys.has(key));
    const receiver = options.webhook ? await startReceiver(options.webhook, closers) : undefined;
    const result = await executePlan(plan, {
      store,
      client,
      clock,
      limiter,
      kill: killHookFromEnv(input.env),
      events: input.progress,
      stop,
      webhookUrl: receiver?.url ?? null,
      onTracker: (tracker) => receiver?.onHint((id) => tracker.hint(id)),
    }, options);
    const error = runOutcome(result);
    store.finishRun(error?.code ?? 'OK', { counts: result.counts, credits: result.credits });
    return { plan, result, summary: renderSummary(plan, result, store, clock.now() - started), error };
  } finally {
    for (const close of closers) await close();
  }
}

/**
 * The embedded sandbox's journal, beside the state database (`state/sandbox.db` →
 * `state/sandbox-service.jsonl`). Why: the state remembers jobs across runs, so the service must
 * too — a job submitted by one run is read by the next, a killed run's POST is found by
 * reconciliation, and ids never repeat between runs on one state (as with the real service).
 */
export function sandboxJournalPath(statePath: string): string {
  return `${statePath.replace(/\.db$/, '')}-service.jsonl`;
}

/** Takes the run lock; a refusal is recorded as the run's outcome before it is thrown (exit 75). */
function takeLock(store: StateStore, name: string, onLost: () => void): HeldLock {
  try {
    return acquireLock(store, { name, onLost });
  } catch (error) {
    store.finishRun((error as ReelpipeError).code ?? 'ERROR', {});
    throw error;
  }
}

async function connect(
  input: RunManifestInput,
  statePath: string,
  limiter: AdaptiveRateLimiter,
  closers: (() => Promise<void> | void)[],
): Promise<ServiceClient> {
  let sandbox: Sandbox | undefined;
  if (input.sandbox) {
    sandbox = await startSandbox({ port: 0, speed: input.sandbox.speed, credits: 1_000_000, seed: 1, journal: sandboxJournalPath(statePath) });
    closers.unshift(() => sandbox?.close());
  }
  const logger = observeRateLimits(createLogger({ env: input.env }), () => limiter.throttled());
  const client = sandbox
    ? createClient({ baseUrl: sandbox.url, apiId: 'sandbox-id', apiKey: 'sandbox-key', logger })
    : clientFromEnv(input.env, { logger });
  closers.unshift(() => client.close());
  return client;
}

async function startReceiver(
  webhook: { listen: string; publicUrl: string },
  closers: (() => Promise<void> | void)[],
): Promise<WebhookReceiver & { onHint: (fn: (id: string) => void) => void }> {
  let hint: (id: string) => void = () => undefined;
  const receiver = await startWebhookReceiver(webhook.listen, webhook.publicUrl, (id) => hint(id));
  closers.unshift(() => receiver.close());
  return Object.assign(receiver, { onHint: (fn: (id: string) => void) => (hint = fn) });
}
