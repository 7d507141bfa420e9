import { Option, type Command } from 'commander';
import type { SandboxRuns } from '../state/locate.js';
import type { CliIo } from './io.js';
import { parseSandboxUrl } from './sandbox-url.js';

/** `--state PATH`, `--sandbox` or `--sandbox-url URL`: which state database a command reads or acts on. */
export interface StateFlags {
  state?: string;
  sandbox?: boolean;
  /** Already checked and normalised by parseSandboxUrl. */
  sandboxUrl?: string;
}

/** Help for --state, --sandbox and --sandbox-url, the same in every command (run and retry add that they pick the service). */
export const STATE_FLAG_HELP = {
  state: "state database (default: state/reelpipe.db in the manifest's project; state/sandbox.db with --sandbox, state/sandbox-HOST-PORT.db with --sandbox-url)",
  sandbox: "the embedded sandbox runs: their outputs (OUTPUTS.sandbox) and, unless --state names another, their state (state/sandbox.db)",
  sandboxUrl:
    "the standalone sandbox's runs at this address (as `reelpipe sandbox` prints it): their outputs (OUTPUTS.sandbox) and, unless --state names another, their state (state/sandbox-HOST-PORT.db); not with --sandbox",
} as const;

/**
 * `--sandbox-url URL`, with `help`. Refused beside `--sandbox` (exit 2), and beside
 * `--sandbox-speed` where a command has it. Why refuse rather than let one win: the two name
 * different services with different jobs and different state files; guessing which was meant
 * would put a rehearsal's jobs where the operator does not look for them.
 */
export function sandboxUrlOption(help: string = STATE_FLAG_HELP.sandboxUrl): Option {
  return new Option('--sandbox-url <url>', help).argParser(parseSandboxUrl).conflicts(['sandbox', 'sandboxSpeed']);
}

/** Adds --state, --sandbox and --sandbox-url, as every command that works on a manifest's state takes them. */
export function addStateFlags(command: Command): Command {
  return command.option('--state <path>', STATE_FLAG_HELP.state).option('--sandbox', STATE_FLAG_HELP.sandbox).addOption(sandboxUrlOption());
}

/** Whose runs the flags name: the real service's, the embedded sandbox's, or the standalone one's (state/locate.ts). */
export function sandboxRunsOf(flags: StateFlags): SandboxRuns {
  return flags.sandboxUrl !== undefined ? { url: flags.sandboxUrl } : flags.sandbox === true;
}

/** Whether the flags name a sandbox's runs, of either kind: their outputs go to OUTPUTS.sandbox (planManifest's `sandbox`). */
export function inSandbox(flags: StateFlags): boolean {
  return sandboxRunsOf(flags) !== false;
}

/**
 * The state database the flags choose: one rule, the same for every command (plan, run, retry,
 * status, report, doubt, resolve, logs, runs, forget, unlock). `--sandbox` says the command is
 * about the embedded sandbox's runs — their service (run, retry, resolve --adopt), their outputs
 * folder (OUTPUTS.sandbox) and their default database (state/sandbox.db); `--sandbox-url URL`
 * the same of the standalone sandbox at URL (state/sandbox-HOST-PORT.db); `--state PATH` names
 * the database, whichever runs it holds. So both together are the sandbox's runs kept in PATH.
 *
 * Why accept both rather than refuse them: `run --sandbox --state PATH` is how a trial keeps its
 * state where the user wants it, and the `plan`, `status` or `report` of that trial must take the
 * very same flags to find it; refusing them in some commands and not others made the same pair
 * mean something in one command and an error in the next.
 */
export function statePathOf(manifestPath: string, io: Pick<CliIo, 'cwd'>, flags: StateFlags): Promise<string> {
  return import('../state/locate.js').then(({ resolveStatePath }) =>
    resolveStatePath(manifestPath, { cwd: io.cwd, statePath: flags.state, sandbox: sandboxRunsOf(flags) }),
  );
}

/**
 * The manifest's key — its identity (`project/name`): the scope of its jobs, the name of its lock —
 * its file's real path, and the state database the flags choose, found from the manifest whatever
 * the working directory. The manifest is not loaded, only its `name:` and `project:` read: its
 * runs, logs and lock must be reachable when it no longer loads (or is gone: then it is named by
 * the path it had, as an older reelpipe keyed it). Rows still keyed by its path are re-keyed to its
 * identity first (run/adopt-identity.ts), said on stderr.
 */
export async function locateManifestState(file: string, io: CliIo, flags: StateFlags): Promise<{ manifestId: string; manifestPath: string; statePath: string }> {
  const [{ manifestKeyOf }, { adoptIdentity }] = await Promise.all([import('../manifest/identity.js'), import('../run/adopt-identity.js')]);
  const key = await manifestKeyOf(file, io.cwd);
  const statePath = await statePathOf(key.path, io, flags);
  await adoptIdentity(statePath, key, (line) => io.stderr(`${line}\n`));
  return { manifestId: key.id, manifestPath: key.path, statePath };
}
