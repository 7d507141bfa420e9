import { stat } from 'node:fs/promises';
import { thisHost } from '../util/host-name.js';
import { ReelpipeError, type ErrorCode } from '../errors.js';
import { manifestKeyOf } from '../manifest/identity.js';
import { resolveStatePath, stateAt, type SandboxRuns } from '../state/index.js';
import type { Clock } from '../util/clock.js';
import { redactSecrets, SECRET_ENV_VARS } from '../util/logger.js';
import { oneLine } from '../util/one-line.js';

/**
 * The errors that refuse a run's start when thrown before any job moved: recorded in `runs` as
 * refusals (`reelpipe runs --all` lists them), said on the terminal as any error is. Each is
 * something a person fixes, or that passes, while nothing was sent: another run holds the lock
 * (75), credentials or configuration missing (2), input that does not validate — the manifest,
 * its data files, a hook's environment, a style the service no longer offers — or a wrong flag
 * such as a `--step` whose upstream is not finished (2), the budget gate (3).
 *
 * Not refusals: a state database that is not this outputs folder's (STATE_MISMATCH: it is left
 * unwritten, as `plan`'s verdict leaves it), a local fault or a damaged database (writing is what
 * fails), a signal while waiting for the lock (a stop, exit 4), a bug. Those stay runs as before.
 */
const REFUSALS: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['LOCKED', 'MISSING_CONFIG', 'INVALID_INPUT', 'USAGE', 'BUDGET_EXCEEDED']);

/** Characters of a refusal kept. Why 500: the longest first lines (a lock's holder, the budget gate's figures) fit whole. */
const REFUSAL_MAX = 500;

/**
 * What is recorded of a refused start: the first line of its message (the rest lists located
 * issues, which `validate` gives again), credentials redacted before it is cut; null when
 * `error` does not refuse a start.
 */
export function refusalOf(error: unknown, env: NodeJS.ProcessEnv): string | null {
  if (!(error instanceof ReelpipeError) || !REFUSALS.has(error.code)) return null;
  const first = error.message.split('\n', 1)[0] ?? '';
  return oneLine(redactSecrets(first, SECRET_ENV_VARS.map((name) => env[name])), REFUSAL_MAX) || error.code;
}

/** Where a run would keep its state: the flags that choose the database (see state/locate.ts). */
export interface StateChoice {
  manifestFile: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  statePath?: string;
  sandbox?: SandboxRuns;
}

/**
 * Records a start refused before the run opened its state database, in the database it would
 * have used, when that exists (state/sqlite/refused-start.ts says why only then). A path that names no
 * file records nothing: no manifest can be identified by it — a mistyped crontab line would
 * otherwise leave runs under a name no manifest has, in the state of whatever project the path
 * happens to fall in. Best effort: the refusal is what the operator must see, and a record that
 * cannot be written (a damaged or busy database) must not replace it with another error.
 */
export async function recordEarlyRefusal(choice: StateChoice, error: unknown, clock: Clock): Promise<void> {
  const refusal = refusalOf(error, choice.env);
  if (refusal === null) return;
  try {
    const manifest = await manifestKeyOf(choice.manifestFile, choice.cwd);
    if (!(await stat(manifest.path)).isFile()) return;
    const statePath = resolveStatePath(manifest.path, { cwd: choice.cwd, statePath: choice.statePath, sandbox: choice.sandbox });
    const start = { manifest: manifest.id, from: manifest.path, host: thisHost(), pid: process.pid, outcome: (error as ReelpipeError).code, refusal };
    await stateAt(statePath).recordRefusedStart(start, clock);
  } catch {
    // Not recorded: see above.
  }
}
