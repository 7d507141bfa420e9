import { ReelpipeError, type ErrorCode } from '../errors.js';

/**
 * Exit codes, in one place. Cron wrappers and CI page on these, so they never change meaning.
 * @see README.md "Exit codes"
 */
export const EXIT = {
  ok: 0,
  /** The run finished, but some jobs failed or were rejected. */
  jobsFailed: 1,
  /** Invalid input or usage: nothing was submitted. */
  usage: 2,
  /** The budget or the account's credits would be exceeded. */
  budget: 3,
  /** Work is left that running the same command again moves on (interrupted, timed out, still rendering). */
  unfinished: 4,
  /** Jobs are in doubt that only a person can settle: `reelpipe doubt`, then `reelpipe resolve`. */
  inDoubt: 5,
  /** A local fault (disk full, state database unwritable; sysexits EX_IOERR): fix the machine, run again. */
  localFault: 74,
  /** An unexpected internal error: a bug to report (sysexits EX_SOFTWARE). */
  internal: 70,
  /** Another run holds the lock (sysexits EX_TEMPFAIL: try again later). */
  locked: 75,
} as const;

const BY_CODE: Record<ErrorCode, number> = {
  USAGE: EXIT.usage,
  INVALID_INPUT: EXIT.usage,
  MISSING_CONFIG: EXIT.usage,
  // The wrong state database for these outputs: a configuration problem, and nothing was sent.
  STATE_MISMATCH: EXIT.usage,
  API_BAD_REQUEST: EXIT.usage,
  API_NOT_FOUND: EXIT.usage,
  // A rejected key is a configuration problem: retrying cannot help.
  API_UNAUTHORIZED: EXIT.usage,
  API_FORBIDDEN: EXIT.usage,
  // Any other final 4xx (405, 409, 410, 422…): the request itself is wrong; resending cannot help.
  API_STATUS: EXIT.usage,
  BUDGET_EXCEEDED: EXIT.budget,
  INSUFFICIENT_CREDITS: EXIT.budget,
  JOBS_FAILED: EXIT.jobsFailed,
  JOBS_IN_DOUBT: EXIT.inDoubt,
  // Also a state database that is damaged or not one (StateDamagedError): the file on this machine
  // is at fault, not the input (2) nor our code (70); a person restores it, nothing was sent.
  LOCAL_FAULT: EXIT.localFault,
  DOWNLOAD_FAILED: EXIT.unfinished,
  UNFINISHED: EXIT.unfinished,
  INTERRUPTED: EXIT.unfinished,
  // Transient service trouble leaves resumable work behind.
  API_RATE_LIMITED: EXIT.unfinished,
  API_SERVER_ERROR: EXIT.unfinished,
  API_CONNECTION: EXIT.unfinished,
  API_TIMEOUT: EXIT.unfinished,
  API_IN_DOUBT: EXIT.unfinished,
  LOCKED: EXIT.locked,
  API_INVALID_RESPONSE: EXIT.internal,
  STATE_CORRUPT: EXIT.internal,
  INTERNAL: EXIT.internal,
};

/** The exit code for anything thrown out of a command. */
export function exitCodeFor(error: unknown): number {
  return error instanceof ReelpipeError ? BY_CODE[error.code] : EXIT.internal;
}

/**
 * The exit code a run recorded as `outcome` (the runs table: `OK` or an error code) ended with;
 * null for a run with no outcome yet, or a code this reelpipe does not know.
 */
export function exitCodeForOutcome(outcome: string | null): number | null {
  if (outcome === null) return null;
  if (outcome === 'OK') return EXIT.ok;
  return Object.hasOwn(BY_CODE, outcome) ? BY_CODE[outcome as ErrorCode] : null;
}
