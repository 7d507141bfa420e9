import { UsageError } from '../../errors.js';

/** How a run shows its progress on stderr. */
export type ProgressMode = 'live' | 'plain' | 'quiet';

/** Forces a mode: `live` or `plain` (tests, and a terminal that draws badly). */
export const PROGRESS_ENV = 'REELPIPE_PROGRESS';

/**
 * The one decision of how progress shows. `--quiet`: none (the summary and errors only). Else
 * live — a block redrawn in place — only when stderr is a terminal that understands cursor
 * movement (TERM is not `dumb`); anything else (cron, a pipe, a file, CI) gets plain lines
 * without one escape code. REELPIPE_PROGRESS=live|plain overrides the guess.
 */
export function progressMode(options: { quiet?: boolean; isTTY: boolean; env: NodeJS.ProcessEnv }): ProgressMode {
  if (options.quiet) return 'quiet';
  const forced = options.env[PROGRESS_ENV]?.trim().toLowerCase();
  if (forced === 'live' || forced === 'plain') return forced;
  if (forced) throw new UsageError(`${PROGRESS_ENV}=${options.env[PROGRESS_ENV]}: unknown progress mode; use live or plain (or leave it unset)`);
  return options.isTTY && options.env.TERM !== 'dumb' ? 'live' : 'plain';
}
