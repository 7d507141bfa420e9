import { EventEmitter } from 'node:events';
import type { JobState, JobStatus } from '../state/index.js';

/**
 * What a run announces while it works, `subject:verb` like the state log. The progress printer
 * listens to these, and tests await them instead of sleeping.
 */
export interface RunEventMap {
  /**
   * A job changed status. The row's money and times ride along (when the announcer has the row),
   * so progress can show credits so far and estimate from observed durations.
   */
  'job:status': {
    key: string;
    step: string;
    kind: string;
    status: JobStatus;
    remoteId?: string | null;
    detail?: string;
    creditsUsed?: number | null;
    creditsPrior?: number;
    submittedAt?: number | null;
    finishedAt?: number | null;
  };
  'job:download-failed': { key: string; step: string; message: string };
  /** A read of a tracked job failed: said at the first failure, and when the run gives up on it. */
  'job:read-failed': { key: string; step: string; message: string; giveUp: boolean };
  /**
   * Submitting stops. `message` says why and what happens now, read after `stopping: `; `cause`,
   * when the message does not name it (a signal), is read in parentheses: `stopping (SIGINT): …`.
   */
  'run:stopping': { reason: StopReason; message: string; cause?: string };
  /** The run has its row (its id) and its log, before the lock is taken: what a header names. */
  'run:started': RunStarted;
  /** The run's row records how it ended: `OK` or the error code. */
  'run:finished': { runId: number; outcome: string };
  'run:note': { message: string };
  /**
   * A page of the plan's jobs recorded past `planned` as the run starts (those an earlier run left
   * mid-POST already in doubt): the pages come before `run:jobs`, each job in one. Progress counts from them.
   */
  'run:jobs-page': { jobs: readonly JobState[] };
  /**
   * Every page is read: how many of the plan's jobs were found in each status (`planned`: how
   * many found planned), as the run's log gives them. `joined`: this process joined a live run
   * another member started — it resumes nothing.
   */
  'run:jobs': { counts: Partial<Record<JobStatus, number>>; planned: number; joined: boolean };
}

/** The run as it starts: the facts a progress header and a log's first line name. */
export interface RunStarted {
  runId: number;
  manifest: string;
  statePath: string;
  /** The run's NDJSON log, or null when the caller keeps no log file. */
  logFile: string | null;
  jobs: number;
  steps: number;
  /** Expected credits of the jobs whose cost is known; `unknownJobs` are left out of it. */
  expectedCredits: number | null;
  unknownJobs: number;
  maxCredits: number | null;
  concurrency: number;
  sandbox: boolean;
  /** The manifest's run before this one (refused starts left out), as `reelpipe runs` saw it as this one started; null for its first. */
  previous: PreviousRun | null;
}

/** A run as the next run of its manifest finds it: what a header says the new one resumes. */
export interface PreviousRun {
  runId: number;
  /**
   * `finished` (its end recorded), `died` (no end recorded, and nobody holds its lock: killed, or
   * its machine went down), `running` (its lock is held: this run waits for it, or is refused).
   */
  state: 'finished' | 'died' | 'running';
  /** `OK` or the code of the error it ended with; null without an end. */
  outcome: string | null;
}

/**
 * Why submitting stopped before every job was submitted (`halt-after`: --halt-after N failures
 * were reached; `state-held`: another process kept SQLite's write lock past the busy timeout, so
 * nothing more could be recorded — StateBusyError).
 */
export type StopReason = 'interrupted' | 'deadline' | 'budget' | 'credits' | 'auth' | 'lock-lost' | 'unreachable' | 'local-fault' | 'state-held' | 'halt-after';

export class RunEvents {
  private readonly emitter = new EventEmitter();

  on<E extends keyof RunEventMap>(event: E, listener: (payload: RunEventMap[E]) => void): this {
    this.emitter.on(event, listener);
    return this;
  }

  off<E extends keyof RunEventMap>(event: E, listener: (payload: RunEventMap[E]) => void): this {
    this.emitter.off(event, listener);
    return this;
  }

  emit<E extends keyof RunEventMap>(event: E, payload: RunEventMap[E]): void {
    this.emitter.emit(event, payload);
  }

  /** Resolves with the first payload of `event` that satisfies `test`. */
  once<E extends keyof RunEventMap>(event: E, test: (payload: RunEventMap[E]) => boolean = () => true): Promise<RunEventMap[E]> {
    return new Promise((resolve) => {
      const listener = (payload: RunEventMap[E]) => {
        if (!test(payload)) return;
        this.off(event, listener);
        resolve(payload);
      };
      this.on(event, listener);
    });
  }
}
