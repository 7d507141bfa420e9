import type { Command } from 'commander';
import type { CliIo } from './io.js';

/** `--state PATH` or `--sandbox`: which state database a command reads or acts on. */
export interface StateFlags {
  state?: string;
  sandbox?: boolean;
}

/** Help for --state and --sandbox, the same in every command (run and retry add that --sandbox picks the service). */
export const STATE_FLAG_HELP = {
  state: "state database (default: state/reelpipe.db in the manifest's project; state/sandbox.db with --sandbox)",
  sandbox: "the embedded sandbox runs: their outputs (OUTPUTS.sandbox) and, unless --state names another, their state (state/sandbox.db)",
} as const;

/** Adds --state and --sandbox, as every command that works on a manifest's state takes them. */
export function addStateFlags(command: Command): Command {
  return command.option('--state <path>', STATE_FLAG_HELP.state).option('--sandbox', STATE_FLAG_HELP.sandbox);
}

/**
 * The state database the flags choose: one rule, the same for every command (plan, run, retry,
 * status, report, doubt, resolve, logs, runs, forget, unlock). `--sandbox` says the command is
 * about the embedded sandbox's runs — their service (run, retry, resolve --adopt), their outputs
 * folder (OUTPUTS.sandbox) and their default database (state/sandbox.db); `--state PATH` names
 * the database, whichever runs it holds. So both together are the sandbox's runs kept in PATH.
 *
 * Why accept both rather than refuse them: `run --sandbox --state PATH` is how a trial keeps its
 * state where the user wants it, and the `plan`, `status` or `report` of that trial must take the
 * very same flags to find it; refusing them in some commands and not others made the same pair
 * mean something in one command and an error in the next.
 */
export function statePathOf(manifestPath: string, io: Pick<CliIo, 'cwd'>, flags: StateFlags): Promise<string> {
  return import('../state/locate.js').then(({ resolveStatePath }) =>
    resolveStatePath(manifestPath, { cwd: io.cwd, statePath: flags.state, sandbox: flags.sandbox }),
  );
}

/**
 * The manifest's identity — its real path: the scope of its jobs, the name of its lock — and the
 * state database the flags choose, found from the manifest whatever the working directory. The
 * manifest is not read: its runs, logs and lock must be reachable when it no longer loads (or is
 * gone: then it is named by the path it had).
 */
export async function locateManifestState(file: string, io: CliIo, flags: StateFlags): Promise<{ manifestPath: string; statePath: string }> {
  const { manifestIdentity } = await import('../manifest/identity.js');
  const manifestPath = await manifestIdentity(file, io.cwd);
  return { manifestPath, statePath: await statePathOf(manifestPath, io, flags) };
}
