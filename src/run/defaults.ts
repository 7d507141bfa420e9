/**
 * Defaults the command line needs before any run module is loaded (kept apart so `--help` and
 * light commands start without loading the runner).
 */

/** The embedded sandbox's state lives apart, so a trial run can never mark real jobs done. */
export const SANDBOX_STATE_PATH = 'state/sandbox.db';
/** @default speed of the embedded sandbox: fast enough that a demo finishes in seconds. */
export const DEFAULT_SANDBOX_SPEED = 1000;
