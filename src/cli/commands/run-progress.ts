import { ReelpipeError, UsageError } from '../../errors.js';
import { startProgress, type Progress } from '../../report/progress.js';
import { progressMode } from '../../report/progress/mode.js';
import type { RunEvents } from '../../run/run-events.js';
import { isoTime } from '../../util/time-format.js';
import { VERSION } from '../../util/version.js';
import { exitCodeFor } from '../exit-codes.js';
import type { CliIo } from '../io.js';
import type { OutputFlags } from './output-flags.js';

/** Seconds between plain progress's status lines, for tests and for logs that want more or less. @default 30 (STATUS_EVERY_MS) */
export const STATUS_EVERY_ENV = 'REELPIPE_STATUS_EVERY';

const SILENT: Progress = { found: () => undefined, begin: () => undefined, close: () => undefined };

/** The run's progress on stderr, in the mode progress/mode.ts decides; none with `--quiet`. */
export function startRunProgress(io: CliIo, events: RunEvents, flags: OutputFlags): Progress {
  const mode = progressMode({ quiet: flags.quiet, isTTY: io.stderrTerminal?.() !== undefined, env: io.env });
  if (mode === 'quiet') return SILENT;
  return startProgress(events, {
    mode,
    write: (text) => io.stderr(text),
    version: VERSION,
    size: () => io.stderrTerminal?.() ?? { columns: 80, rows: 24 },
    statusEveryMs: statusEvery(io.env),
  });
}

/**
 * Where what happens after the summary (the on_finish hook, notifications) is said: stderr, each
 * line stamped with its ISO time as plain progress stamps its events, so a cron log holds no line
 * without one.
 */
export function endOfRunWriter(io: CliIo, flags: OutputFlags): (line: string) => void {
  const plain = progressMode({ quiet: flags.quiet, isTTY: io.stderrTerminal?.() !== undefined, env: io.env }) !== 'live';
  return (line) => io.stderr(plain ? `${isoTime(Date.now())}  ${line}` : line);
}

/**
 * Says the error a run ends with (`reelpipe: …`) and sets the exit code from it, as the CLI's
 * entry would. Why here: without a terminal every line of stderr after the run's header starts
 * with its ISO time, and this last line too (each of its lines, for a message of several). A run
 * refused before it started (no header: a bad flag, the budget gate, the outputs folder's owner)
 * is said as every command says a refusal, the same words `plan` gives; with --quiet or on a
 * terminal too. A bug (not a ReelpipeError) goes on to the entry, which asks for a report.
 */
export function sayRunError(io: CliIo, flags: OutputFlags, setExit: (code: number) => void, started: boolean): (error: unknown) => void {
  return (error) => {
    if (!(error instanceof ReelpipeError)) throw error;
    const plain = started && progressMode({ quiet: flags.quiet, isTTY: io.stderrTerminal?.() !== undefined, env: io.env }) === 'plain';
    const at = isoTime(Date.now());
    const lines = `reelpipe: ${error.message}`.split('\n').map((line) => (plain ? `${at}  ${line}` : line));
    io.stderr(`${lines.join('\n')}\n`);
    setExit(exitCodeFor(error));
  };
}

function statusEvery(env: NodeJS.ProcessEnv): number | undefined {
  const text = env[STATUS_EVERY_ENV];
  if (text === undefined || text.trim() === '') return undefined;
  const seconds = Number(text);
  if (!Number.isFinite(seconds) || seconds <= 0) throw new UsageError(`${STATUS_EVERY_ENV}=${text}: use a number of seconds above 0 (default 30)`);
  return seconds * 1000;
}
