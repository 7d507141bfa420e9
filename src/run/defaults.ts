/**
 * Defaults the command line needs before any run module is loaded (kept apart so `--help` and
 * light commands start without loading the runner).
 */

/** @default speed of the embedded sandbox: fast enough that a demo finishes in seconds. */
export const DEFAULT_SANDBOX_SPEED = 1000;
