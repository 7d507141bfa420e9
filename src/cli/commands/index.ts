import type { Command } from 'commander';
import type { CliIo } from '../io.js';
import { registerPlan } from './plan.js';
import { registerRetry } from './retry.js';
import { registerRun } from './run.js';
import { registerSandbox } from './sandbox.js';
import { registerSchema } from './schema.js';
import { registerStatus } from './status.js';
import { registerValidate } from './validate.js';

/**
 * A command registers itself on the program. Its action either resolves (optionally calling
 * `setExit` with a non-zero code, e.g. 1 when jobs failed) or throws a ReelpipeError.
 */
export type RegisterCommand = (program: Command, io: CliIo, setExit: (code: number) => void) => void;

/** Every command, in the order `reelpipe --help` lists them. */
export const COMMANDS: RegisterCommand[] = [registerValidate, registerPlan, registerSchema, registerSandbox, registerRun, registerStatus, registerRetry];
