import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import type { CliIo } from './io.js';

/** `--state PATH` or `--sandbox`: which state database a command reads or acts on. */
export interface StateFlags {
  state?: string;
  sandbox?: boolean;
}

/** Adds --state and --sandbox, as every command that works on a manifest's state takes them. */
export function addStateFlags(command: Command): Command {
  return command
    .option('--state <path>', "state database (default: state/reelpipe.db in the manifest's project)")
    .option('--sandbox', "the embedded sandbox runs' state (state/sandbox.db) and outputs (OUTPUTS.sandbox)");
}

/**
 * The manifest's identity — its real path: the scope of its jobs, the name of its lock — and the
 * state database the flags choose, found from the manifest whatever the working directory. The
 * manifest is not read: its runs, logs and lock must be reachable when it no longer loads (or is
 * gone: then it is named by the path it had).
 */
export async function locateManifestState(file: string, io: CliIo, flags: StateFlags): Promise<{ manifestPath: string; statePath: string }> {
  refuseBoth(flags);
  const [{ manifestIdentity }, { resolveStatePath }] = await Promise.all([import('../manifest/identity.js'), import('../state/locate.js')]);
  const manifestPath = await manifestIdentity(file, io.cwd);
  return { manifestPath, statePath: resolveStatePath(manifestPath, { cwd: io.cwd, statePath: flags.state, sandbox: flags.sandbox }) };
}

/**
 * `run` takes both (--sandbox picks the service, --state where its state goes); every other
 * command only picks which database to use with them, so together they contradict each other.
 */
export function refuseBoth(flags: StateFlags): void {
  if (flags.state !== undefined && flags.sandbox) {
    throw new UsageError("--state and --sandbox both choose the state database: give one (--sandbox is the embedded sandbox runs' state)");
  }
}
