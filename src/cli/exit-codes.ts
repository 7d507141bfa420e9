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
  /** Work is left unfinished (interrupted, in doubt, timed out): run again to resume. */
  unfinished: 4,
  /** An unexpected internal error: a bug to report (sysexits EX_SOFTWARE). */
  internal: 70,
  /** Another run holds the lock (sysexits EX_TEMPFAIL: try again later). */
  locked: 75,
} as const;

const BY_CODE: Record<ErrorCode, number> = {
  USAGE: EXIT.usage,
  INVALID_INPUT: EXIT.usage,
  MISSING_CONFIG: EXIT.usage,
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
