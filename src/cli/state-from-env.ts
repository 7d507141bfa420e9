import type { Command } from 'commander';

/** The environment variable that names the state when `--state` does not. */
export const STATE_VARIABLE = 'REELPIPE_STATE';

/**
 * Gives `--state` the value of REELPIPE_STATE on every command that takes `--state` and was not
 * given it — except beside `--sandbox` or `--sandbox-url`. Why the exception: the variable is set
 * once for a machine's real runs (its shared PostgreSQL, say); a rehearsal on a sandbox must keep
 * its made-up jobs in the sandbox's own state, never among the real ones. `--state` typed on the
 * command line always wins. Runs before each command's action (main.ts), reading the CLI's env.
 */
export async function stateFromEnvironment(command: Command, env: NodeJS.ProcessEnv): Promise<void> {
  const value = env[STATE_VARIABLE]?.trim();
  if (!value) return;
  if (!command.options.some((option) => option.attributeName() === 'state')) return;
  const flags = command.opts<{ state?: string; sandbox?: boolean; sandboxUrl?: string }>();
  if (flags.state !== undefined || flags.sandbox === true || flags.sandboxUrl !== undefined) return;
  // An address is checked here, so that a malformed one is refused naming the variable, not --state.
  if (/^postgres(ql)?:\/\//i.test(value)) (await import('../state/index.js')).rememberAddress(value, STATE_VARIABLE);
  command.setOptionValueWithSource('state', value, 'env');
}
