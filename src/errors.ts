/**
 * The one error hierarchy of reelpipe. Every error a user can meet is a ReelpipeError with a stable
 * `code`; the CLI turns codes into exit codes in exactly one place (src/cli/exit-codes.ts).
 * Service errors (src/api/errors.ts) extend this base too.
 */

/** Stable error codes. Never rename one: scripts and reports match on them. */
export type ErrorCode =
  | 'USAGE'
  | 'INVALID_INPUT'
  | 'MISSING_CONFIG'
  | 'BUDGET_EXCEEDED'
  | 'INSUFFICIENT_CREDITS'
  | 'JOBS_FAILED'
  | 'JOBS_IN_DOUBT'
  | 'LOCAL_FAULT'
  | 'UNFINISHED'
  | 'INTERRUPTED'
  | 'LOCKED'
  | 'STATE_CORRUPT'
  | 'STATE_MISMATCH'
  | 'DOWNLOAD_FAILED'
  | 'API_BAD_REQUEST'
  | 'API_UNAUTHORIZED'
  | 'API_FORBIDDEN'
  | 'API_NOT_FOUND'
  | 'API_RATE_LIMITED'
  | 'API_SERVER_ERROR'
  | 'API_STATUS'
  | 'API_CONNECTION'
  | 'API_TIMEOUT'
  | 'API_IN_DOUBT'
  | 'API_INVALID_RESPONSE'
  | 'INTERNAL';

export interface ReelpipeErrorOptions {
  cause?: unknown;
}

export class ReelpipeError extends Error {
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options: ReelpipeErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.name = new.target.name;
  }
}

/** Wrong command-line usage: unknown command, bad flag, conflicting options. */
export class UsageError extends ReelpipeError {
  constructor(message: string) {
    super('USAGE', message);
  }
}

/** One located problem in a user's input (manifest, CSV, flags). */
export interface InputIssue {
  file?: string;
  line?: number;
  column?: number;
  /** Dotted path of the field, e.g. `steps.2.with.aspect_ratio`. */
  path?: string;
  message: string;
}

/** Formats an issue as `FILE:LINE:COL  path: message`, omitting what is unknown. */
export function formatIssue(issue: InputIssue): string {
  const where = issue.file
    ? [issue.file, issue.line, issue.line === undefined ? undefined : issue.column]
        .filter((part) => part !== undefined)
        .join(':')
    : '';
  const what = issue.path ? `${issue.path}: ${issue.message}` : issue.message;
  return where ? `${where}  ${what}` : what;
}

/** Invalid user input: every problem found, each with its place, so all can be fixed in one go. */
export class InvalidInputError extends ReelpipeError {
  readonly issues: readonly InputIssue[];

  constructor(issues: readonly InputIssue[], summary = 'invalid input') {
    super('INVALID_INPUT', [summary, ...issues.map(formatIssue)].join('\n'));
    this.issues = issues;
  }
}

/** A required setting (usually an environment variable) is missing. */
export class MissingConfigError extends ReelpipeError {
  readonly variable: string;

  constructor(variable: string, purpose: string) {
    super('MISSING_CONFIG', `${variable} is not set: ${purpose}`);
    this.variable = variable;
  }
}

/** The plan or the run would spend more than the budget allows. */
export class BudgetExceededError extends ReelpipeError {
  constructor(message: string) {
    super('BUDGET_EXCEEDED', message);
  }
}

/** The account cannot pay for more work; submitting stops for the whole run. */
export class InsufficientCreditsError extends ReelpipeError {
  constructor(message: string, options: ReelpipeErrorOptions = {}) {
    super('INSUFFICIENT_CREDITS', message, options);
  }
}

/** Another run holds the lock on this state database and manifest. */
export class LockedError extends ReelpipeError {
  constructor(message: string, options: ReelpipeErrorOptions = {}) {
    super('LOCKED', message, options);
  }
}

/**
 * Another process kept SQLite's write lock on the state database past the busy timeout: a reelpipe
 * paused (SIGSTOP, a frozen VM) or hung in the middle of a write, or another program holding the
 * file. No lease can break that lock — only the process ending or going on lets it go — so this is
 * "try again later" (exit 75, like a run lock held), and nothing was written by the write refused.
 */
export class StateBusyError extends LockedError {
  /** What holds the file, without what to do: a run that stops on it says its own (outcome.ts). */
  readonly held: string;

  constructor(path: string, waitedMs: number, options: ReelpipeErrorOptions = {}) {
    const held =
      `the state database ${path} is held by another process: SQLite's write lock was not let go within ${Math.round(waitedMs / 1000)} s ` +
      '(a reelpipe paused or hung in the middle of a write, or another program holding the file)';
    super(`${held}. Nothing more was sent and nothing recorded is lost; run the same command again once that process has gone on or ended`, options);
    this.held = held;
  }
}

/** A run ended with work left that a later run will resume. */
export class UnfinishedError extends ReelpipeError {
  constructor(message: string) {
    super('UNFINISHED', message);
  }
}

/**
 * A run stopped on SIGINT/SIGTERM after persisting its state. `left`: what remains, if known;
 * `also`: what else needs the operator, said after the instruction to resume (`; …`).
 */
export class InterruptedError extends ReelpipeError {
  constructor(signal: string, left?: string, also = '') {
    super('INTERRUPTED', `interrupted by ${signal}${left ? `; ${left}` : ''}: run the same command again to resume${also}`);
  }
}

/** Jobs are in doubt that no run can settle: a person decides (reelpipe doubt / resolve). */
export class JobsInDoubtError extends ReelpipeError {
  constructor(message: string) {
    super('JOBS_IN_DOUBT', message);
  }
}

/**
 * This machine failed the run, not the service or the jobs: the disk is full, the state database
 * cannot be written. Nothing is wrong with the jobs; fix the machine and run again.
 */
export class LocalFaultError extends ReelpipeError {
  constructor(message: string, options: ReelpipeErrorOptions = {}) {
    super('LOCAL_FAULT', message, options);
  }
}

/**
 * The state database is a file reelpipe cannot read as its own: not SQLite at all (garbage bytes,
 * a file copied over it), damaged pages, or another program's database. A local fault, so exit 74
 * (sysexits EX_IOERR): the file on this machine is at fault, not the input (2) nor our code (70),
 * and nothing about the jobs can be known until a person restores it. The file is left as it is.
 */
export class StateDamagedError extends LocalFaultError {
  readonly path: string;

  constructor(path: string, what: string, options: ReelpipeErrorOptions = {}) {
    super(
      `the state database ${path} ${what}. Nothing was sent and the file was left as it is. ` +
        'Restore it from a backup, or pass --state with the right file; it is the only record of what was paid for, ' +
        'so to start over (making and paying for every job again) move it away together with the outputs folder.',
      options,
    );
    this.path = path;
  }
}

/** A run finished, but some jobs failed or were rejected. */
export class JobsFailedError extends ReelpipeError {
  constructor(message: string) {
    super('JOBS_FAILED', message);
  }
}

/** A file could not be downloaded or failed verification. */
export class DownloadError extends ReelpipeError {
  constructor(message: string, options: ReelpipeErrorOptions = {}) {
    super('DOWNLOAD_FAILED', message, options);
  }
}

/**
 * A file reelpipe refuses to fetch or to write until a person changes something — larger than the
 * ceiling, at a private address, behind a symbolic link in the outputs folder, a path out of it.
 * Running again as it is would refuse it again: the job (made and paid for) waits for that fix.
 */
export class DownloadRefusedError extends DownloadError {}

/**
 * The state database is not the one that belongs with this manifest's outputs: running would pay
 * for jobs again. Nothing was sent; the message names both and the way out.
 */
export class StateMismatchError extends ReelpipeError {
  constructor(message: string) {
    super('STATE_MISMATCH', message);
  }
}

/** The state database is in a shape this version cannot use. */
export class StateError extends ReelpipeError {
  constructor(message: string, options: ReelpipeErrorOptions = {}) {
    super('STATE_CORRUPT', message, options);
  }
}
