import { setMaxListeners } from 'node:events';
import type { ServiceClient } from '../api/index.js';
import type { PlannedJob } from '../plan/types.js';
import type { StateStore } from '../state/index.js';
import type { Clock } from '../util/clock.js';
import type { Random } from '../util/random.js';
import type { BudgetLedger } from './budget-ledger.js';
import type { KillHook } from './kill-hook.js';
import type { AdaptiveRateLimiter } from './rate-limiter.js';
import type { RunEvents, StopReason } from './run-events.js';
import type { ResolvedRunOptions } from './run-options.js';

/** Reasons that also end tracking and downloads: an interruption, the deadline, a lost lock. */
const HALTING = new Set<StopReason>(['interrupted', 'deadline', 'lock-lost']);

/**
 * Why submitting stopped, first reason wins. `halt` (interrupt, deadline, lost lock) also ends tracking and
 * downloads; the others let jobs already in flight finish, so money spent is not wasted.
 */
export class StopState {
  reason: StopReason | null = null;
  /** The first stop's explanation, for the final message. */
  message: string | null = null;
  readonly controller = new AbortController();

  constructor() {
    // Every waiting job listens for the stop: thousands of listeners are expected, not a leak.
    setMaxListeners(0, this.controller.signal);
  }

  get submitting(): boolean {
    return this.reason === null;
  }

  /**
   * Whether a job that already holds its reservation must not be sent either: yes after an
   * interruption or an account refusal; no after a budget stop, since that job fits the cap.
   */
  get refusesReserved(): boolean {
    return this.reason !== null && this.reason !== 'budget';
  }

  get halted(): boolean {
    return this.reason !== null && HALTING.has(this.reason);
  }

  stop(reason: StopReason, message?: string): boolean {
    if (this.reason !== null && !HALTING.has(reason)) return false;
    if (this.halted) return false;
    this.reason = reason;
    this.message ??= message ?? null;
    if (this.halted) this.controller.abort(new Error(reason));
    return true;
  }
}

/** Everything the parts of a run share. */
export interface RunContext {
  store: StateStore;
  client: ServiceClient;
  clock: Clock;
  random: Random;
  limiter: AdaptiveRateLimiter;
  ledger: BudgetLedger;
  events: RunEvents;
  kill: KillHook;
  options: ResolvedRunOptions;
  outputsDir: string;
  /** The receiver's address for webhook_url, when webhooks are on. */
  webhookUrl: string | null;
  /** The plan's jobs by key. */
  planned: Map<string, PlannedJob>;
  stop: StopState;
  /**
   * Jobs in doubt when the run started which --resubmit-in-doubt may resubmit, once each, where
   * the service cannot be searched: a job that falls in doubt again during this run is held
   * again, never resent in a loop.
   */
  resubmit: Set<string>;
}
