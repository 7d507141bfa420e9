import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { ReelpipeError } from '../errors.js';
import { COMMANDS } from './commands/index.js';
import { EXIT, exitCodeFor } from './exit-codes.js';
import { fileFault } from './file-fault.js';
import type { CliIo } from './io.js';
import { processIo } from './io.js';
import { stateFromEnvironment } from './state-from-env.js';
import { skewClockForTests } from './test-clock-skew.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

/**
 * The command-line entry. Parses argv, runs one command, and returns the exit code: commands
 * either return a code or throw; every throw becomes a code in src/cli/exit-codes.ts, never here.
 */
export async function main(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  skewClockForTests(io.env);
  let code: number = EXIT.ok;
  const program = new Command('reelpipe')
    .description('Batch media production through an asynchronous generation API, from YAML manifests.')
    .version(pkg.version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help for a command')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout(text),
      writeErr: (text) => io.stderr(text),
      outputError: (text, write) => write(`${text.trimEnd()}\n${hintFor(text)}`),
    })
    .hook('preAction', (_program, action) => stateFromEnvironment(action, io.env));

  for (const register of COMMANDS) {
    register(program, io, (result) => {
      code = result;
    });
  }

  try {
    await program.parseAsync([...argv], { from: 'user' });
    return code;
  } catch (error) {
    return reportError(error, io);
  }
}

function hintFor(text: string): string {
  return /unknown command/.test(text) ? "Run 'reelpipe --help' for the list of commands.\n" : '';
}

function reportError(error: unknown, io: CliIo): number {
  if (error instanceof CommanderError) {
    // --help and --version end here too, with code 0.
    return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  }
  // A file system error no command put in its own words is still this machine's fault (exit 74).
  const known = error instanceof ReelpipeError ? error : fileFault(error, 'a file could not be used', 'the path, its folder and their permissions must let reelpipe read and write there, on a disk with room');
  if (known) {
    io.stderr(`reelpipe: ${known.message}\n`);
    return exitCodeFor(known);
  }
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  io.stderr(`reelpipe: internal error — please report it with this text:\n${detail}\n`);
  return EXIT.internal;
}
