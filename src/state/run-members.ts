import { UsageError } from '../errors.js';
import type { LockTaker } from './lock/lock-policy.js';

/**
 * What a store that several processes share offers a run whose manifest another live run holds:
 * join it as a member (PostgreSQL: postgres/pg-members.ts says how). A store of one process
 * (SQLite) offers none: a second run exits 75 there.
 */
export interface RunMembers {
  /**
   * Joins the run holding the manifest's lock, as `taker` (its lock named `taker.name`, fenced and
   * heartbeaten like the run lock). The run joined (its first member's id and host), or null when
   * none is left to join (it ended meanwhile: take the lock instead).
   */
  join(taker: LockTaker & { name: string; token: string; pid: number }, terms: string): Promise<{ runId: number; host: string } | { refused: RunTerms } | null>;
  /** Records the terms of the run this process started (the first member's): members joining it must run alike. */
  declare(terms: string): Promise<void>;
  /** This member busy (driving jobs) or idle (nothing left to drive); false once its lock is gone. */
  idle(lock: string, token: string, idle: boolean): Promise<boolean>;
  /** The hosts of the other members still busy. */
  busy(token: string): Promise<string[]>;
  /** Jobs of the manifest another member (its lock standing) claimed: not this one's to drive. */
  heldByOthers(): Promise<Set<string>>;
  /** Leaves the run (its lock given up): true when this member was the last, the one that ends the run. */
  leave(lock: string, token: string): Promise<boolean>;
}

/** The lock name of a member that joined run `runId` of `manifest`: unique, and told apart from any manifest's name. */
export const memberLockName = (manifest: string, runId: number): string => `${manifest} @member ${runId}`;

/** The run a member would join, and its terms (what the first member recorded), when they are not the joining member's. */
export interface RunTerms {
  runId: number;
  host: string;
  terms: string;
}

/** A member whose terms (plan, --step, caps, --retries) are not its run's: refused, exit 2, nothing sent. */
export class RunTermsError extends UsageError {
  constructor(readonly run: RunTerms) {
    super(`this run's plan or options are not those of run ${run.runId} (started on ${run.host}), which it would join`);
  }
}
