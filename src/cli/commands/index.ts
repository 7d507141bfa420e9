import type { Command } from 'commander';
import type { CliIo } from '../io.js';
import { registerAccount } from './account.js';
import { registerCatalogue } from './catalogue.js';
import { registerDoubt } from './doubt.js';
import { registerForget } from './forget.js';
import { registerHosts } from './hosts.js';
import { registerInit } from './init.js';
import { registerLogs } from './logs.js';
import { registerPlan } from './plan.js';
import { registerReport } from './report.js';
import { registerResolve } from './resolve.js';
import { registerRetry } from './retry.js';
import { registerRun } from './run.js';
import { registerRuns } from './runs.js';
import { registerSandbox } from './sandbox.js';
import { registerSchema } from './schema.js';
import { registerState } from './state.js';
import { registerStatus } from './status.js';
import { registerUnlock } from './unlock.js';
import { registerValidate } from './validate.js';

/**
 * A command registers itself on the program. Its action either resolves (optionally calling
 * `setExit` with a non-zero code, e.g. 1 when jobs failed) or throws a ReelpipeError.
 */
export type RegisterCommand = (program: Command, io: CliIo, setExit: (code: number) => void) => void;

/** Every command, in the order `reelpipe --help` lists them. */
export const COMMANDS: RegisterCommand[] = [
  registerInit, registerValidate, registerPlan, registerSchema, registerSandbox, registerRun, registerStatus, registerRetry, registerReport,
  registerRuns, registerHosts, registerLogs, registerDoubt, registerResolve, registerCatalogue, registerUnlock, registerForget, registerState, registerAccount,
];
