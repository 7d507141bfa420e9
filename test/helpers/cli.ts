import { fileURLToPath } from 'node:url';
import { execa } from 'execa';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const CLI = fileURLToPath(new URL('../../bin/reelpipe.js', import.meta.url));

export interface CliOptions {
  cwd?: string;
  env?: Record<string, string | undefined>;
  input?: string;
  timeout?: number;
}

/** Runs the real CLI as a child process; never throws on a non-zero exit. */
export function runCli(args: readonly string[], options: CliOptions = {}) {
  return execa('node', [CLI, ...args], {
    reject: false,
    cwd: options.cwd ?? REPO_ROOT,
    env: options.env,
    input: options.input,
    timeout: options.timeout,
  });
}
