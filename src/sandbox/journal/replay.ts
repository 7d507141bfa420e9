import { InvalidInputError } from '../../errors.js';
import type { SandboxCore } from '../core.js';
import { FormBody } from '../http/body.js';
import { HttpError } from '../http/reply.js';
import { requestContext, type Router } from '../http/router.js';
import type { JournalOperation } from './format.js';
import type { JournalFile } from './journal-file.js';
import { runOperation } from './operation.js';

/**
 * Rebuilds the sandbox from its journal: every operation is answered again, in order, at its
 * journalled instant and with its journalled decisions (ids, fault draws, timings), through the
 * same handlers and the same life-cycle engine. Life cycles then go on by the clock from their
 * recorded timestamps, as if the sandbox had never stopped. The ledger is rebuilt by the same
 * charges and refunds, and checked against the balance journalled after each operation.
 */
export function replayJournal(core: SandboxCore, router: Router, journal: JournalFile): void {
  core.engine.pause(); // the clock is set to past instants: no timers until the replay is done
  for (const { line, operation } of journal.entries) {
    try {
      replayOne(core, router, operation);
    } catch (error) {
      const message = `${operation.method} ${operation.path} cannot be replayed: ${(error as Error).message}`;
      throw new InvalidInputError([{ file: journal.file, line, message }], 'sandbox journal cannot be replayed (was it written by another sandbox version?)');
    }
  }
  core.resumeIds(journal.entries.length, journal.entries.flatMap((entry) => entry.operation.ids));
  core.engine.resume();
}

function replayOne(core: SandboxCore, router: Router, operation: JournalOperation): void {
  const match = router.match(operation.method, operation.path);
  if (!match || !('route' in match)) throw new Error('this sandbox has no such operation');
  const body = operation.form ? new FormBody(operation.form) : (operation.body ?? {});
  const ctx = requestContext(match.route, operation.path, match.params, new URLSearchParams(), {}, body);
  try {
    runOperation(core, { method: operation.method, path: operation.path, body }, () => match.route.handler(ctx), operation);
  } catch (error) {
    if (error instanceof HttpError) throw new Error(`this sandbox now answers ${error.status} ${JSON.stringify(error.body)}`);
    throw error;
  }
}
