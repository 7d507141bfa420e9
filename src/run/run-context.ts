import { setMaxListeners } from 'node:events';
import type { Members } from './members.js';
import type { LimitFunction } from 'p-limit';
import type { CallOptions, ServiceClient } from '../api/index.js';
import type { OutputFolders } from '../download/index.js';
import type { JobWindow } from './job-window.js';
import type { HeldLock, Intent, JobState, OutputRow, Store } from '../state/index.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import type { Random } from '../util/random.js';
import type { BudgetLedger } from './budget/budget-ledger.js';
import type { KillHook } from './kill-hook.js';
import type { OutputHooks } from './hooks/output-hooks.js';
import type { AdaptiveRateLimiter, HostLimiters } from './submit/rate-limiter.js';
import type { RunEvents, StopReason } from './run-events.js';
import type { ResolvedRunOptions } from './run-options.js';
import type { DeliveryDesk } from './track/deliveries.js';

/**
 * Reasons that also end tracking and downloads: an interruption, the deadline, a lost lock, a
 * service unreachable past its bound, a local fault (the state cannot be written, so nothing
 * more can be recorded safely).
 */
const HALTING = new Set<StopReason>(['interrupted', 'deadline', 'lock-lost', 'unreachable', 'local-fault', 'state-held']);

/**
 * Halts that also cut requests on the wire (the client's signal). Why not an interruption: a
 * person's SIGINT asks for a clean stop, and a creating POST cut mid-way is in doubt, so requests
 * settle (each bounded by the client's deadlines; a second signal kills). The deadline, a lost
 * lock, an unreachable service or a local fault must end the run within seconds whatever the
 * network does: a POST they cut is recorded in doubt and settled by a later run.
 */
const CUTTING = new Set<StopReason>(['deadline', 'lock-lost', 'unreachable', 'local-fault', 'state-held']);

/**
 * Why submitting stopped, first reason wins. `halt` (interrupt, deadline, lost lock) also ends tracking and
 * downloads; the others let jobs already in flight finish, so money spent is not wasted. One
 * exception: a lost lock found after a local fault is the fault's cause (a run paused past its
 * lease, whose connection the server ended while another run took its jobs over), so it is what
 * the run says (exit 75), not the fault.
 */
export class StopState {
  reason: StopReason | null = null;
  /** The first stop's explanation, for the final message. */
  message: string | null = null;
  readonly controller = new AbortController();
  /** Aborted by the halts that cut requests on the wire (see CUTTING): the client's signal. */
  readonly requests = new AbortController();

  constructor() {
    // Every waiting job listens for the stop: thousands of listeners are expected, not a leak.
    setMaxListeners(0, this.controller.signal);
    setMaxListeners(0, this.requests.signal);
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
    if (reason === 'lock-lost' && this.reason === 'local-fault') {
      this.reason = reason;
      this.message = message ?? null;
      return true;
    }
    if (this.reason !== null && !HALTING.has(reason)) return false;
    if (this.halted) return false;
    this.reason = reason;
    this.message ??= message ?? null;
    if (this.halted) this.controller.abort(new Error(reason));
    if (CUTTING.has(reason)) this.requests.abort(new Error(reason));
    return true;
  }
}

/** Everything the parts of a run share. */
export interface RunContext {
  store: Store;
  client: ServiceClient;
  clock: Clock;
  /** The run's log (every request at debug, downloads included). */
  logger: Logger;
  random: Random;
  /** The service host's limiter: creations and reads. */
  limiter: AdaptiveRateLimiter;
  /** Every host's limiter (downloads go through the limiter of the host they come from). */
  limiters: HostLimiters;
  ledger: BudgetLedger;
  events: RunEvents;
  kill: KillHook;
  options: ResolvedRunOptions;
  outputsDir: string;
  /** The outputs folder's folders, each made and checked for links once in the run. */
  folders: OutputFolders;
  /** The webhook channel, when the run listens: per-attempt addresses and their deliveries. */
  webhooks: DeliveryDesk | null;
  /** The plan's places by key, and the jobs the run is driving, as planned (job-window.ts). */
  planned: JobWindow;
  stop: StopState;
  /** Runs a creation (intent, POST, answer) in one of the slots the client has sockets for. */
  creating: LimitFunction;
  /**
   * Each job's row and recorded files as the run started, for its first look at itself; taken
   * (and dropped) by that look, so later reads see the database.
   */
  start: { rows: Map<string, JobState>; outputs: Map<string, OutputRow[]> };
  /** The manifest's output hooks, run once per downloaded file; null when it has none. */
  outputHooks: OutputHooks | null;
  /**
   * Jobs in doubt when the run started which --resubmit-in-doubt may resubmit, once each, where
   * the service cannot be searched: a job that falls in doubt again during this run is held
   * again, never resent in a loop.
   */
  resubmit: Set<string>;
  /** The run lock's lease (state/lock: HeldLock): asked before each intent and each creating request. */
  lease: Pick<HeldLock, 'valid' | 'fresh'>;
  /** This process's part in a run several processes share (members.ts); null: it runs the manifest alone. */
  members: Members | null;
  /** Jobs this process started driving (a member waits for the others' jobs through the store). */
  drivenHere: Set<string>;
  /** Jobs a member of a shared run claimed (its second pass drives only these). */
  claimedHere: Set<string>;
  /** What each intent asks the account (submit/account-gate.ts); null when the account limits nothing as the run starts. */
  account: Intent['gate'] | null;
  /** How many times a job of `step` the service fails may be resubmitted in this run: `--retries`, else the step's `retries` (retry-failed.ts). */
  retriesOf: (step: string) => number;
}

/**
 * The CallOptions of a request made for one job: the lines its requests write to the run's log
 * name the job (its key and label). Why passed, not carried along async calls: an
 * AsyncLocalStorage puts a hook on every promise the run makes, about a tenth of its CPU.
 */
export function callFor(ctx: Pick<RunContext, 'planned'>, key: string): CallOptions {
  return { log: { key, label: ctx.planned.get(key)?.label ?? key } };
}
