import { isLocalFault } from '../state/index.js';
import type { RunContext } from './run-context.js';

/**
 * Stops the whole run if `error` is a fault of this machine (a full disk, an unwritable state
 * database or outputs folder). Policy: such a fault is not one job's failure — every next write
 * would fail the same way, and a state that cannot be written cannot record money safely — so the
 * run halts at once and exits 74 with its summary. Returns whether it was one.
 */
export function stopOnLocalFault(ctx: RunContext, error: unknown): boolean {
  if (!isLocalFault(error)) return false;
  const fault = error instanceof Error ? error.message : String(error);
  // Said after `stopping: ` as the fault alone; the run's end names it as what stopped the run.
  if (ctx.stop.stop('local-fault', `a local fault stopped the run: ${fault}`)) ctx.events.emit('run:stopping', { reason: 'local-fault', message: `a local fault: ${fault}` });
  return true;
}
