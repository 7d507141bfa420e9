import type { Command } from 'commander';
import { InvalidInputError, ReelpipeError, type InputIssue } from '../../errors.js';
import { exitCodeFor } from '../exit-codes.js';
import type { CliIo } from '../io.js';

/** `--quiet` and `--json`, on run, retry, validate and plan. */
export interface OutputFlags {
  /** Only the summary and errors: no progress, no warnings. */
  quiet?: boolean;
  /** One JSON object on stdout at the end, and nothing else on stdout. */
  json?: boolean;
}

export function addOutputFlags(command: Command, json: string): Command {
  return command.option('--quiet', 'print only the summary and errors').option('--json', json);
}

/**
 * How a command ended, as every `--json` output says it: the error's code (or OK), the process's
 * exit code, the message, and for invalid input every problem with its place.
 */
export function outcomeJson(error: unknown): { outcome: string; exitCode: number; error: string | null; issues?: readonly InputIssue[] } {
  if (error === undefined) return { outcome: 'OK', exitCode: 0, error: null };
  return {
    outcome: error instanceof ReelpipeError ? error.code : 'INTERNAL',
    exitCode: exitCodeFor(error),
    error: error instanceof Error ? error.message : String(error),
    ...(error instanceof InvalidInputError ? { issues: error.issues } : {}),
  };
}

export const printJson = (io: CliIo, value: unknown) => io.stdout(`${JSON.stringify(value, null, 2)}\n`);

/**
 * Runs a command's work; with `--json`, a failure still prints one JSON object (what `fallback`
 * knows, the outcome and exit code) before the error goes on to stderr and the exit code.
 */
export async function withJsonFailure<T>(io: CliIo, flags: OutputFlags, fallback: () => object, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (flags.json) printJson(io, { ...fallback(), ...outcomeJson(error) });
    throw error;
  }
}
