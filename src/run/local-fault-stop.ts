import { StateBusyError } from '../errors.js';
import { isLocalFault, LockLostError, type EventType } from '../state/index.js';
import type { RunContext } from './run-context.js';

/**
 * Stops the whole run if `error` is a fault of this machine (a full disk, an unwritable state
 * database or outputs folder), or a lost run lock. Policy: such a fault is not one job's failure — every next write
 * would fail the same way, and a state that cannot be written cannot record money safely — so the
 * run halts at once and exits 74 with its summary. Returns whether it was one.
 */
export function stopOnLocalFault(ctx: RunContext, error: unknown): boolean {
  // A write refused by the fence (state/lock/fence.ts): another run took this one's lock and its
  // jobs, so this run halts as when its heartbeat finds the lock lost (exit 75).
  if (error instanceof LockLostError) {
    if (ctx.stop.stop('lock-lost', error.message)) ctx.events.emit('run:stopping', { reason: 'lock-lost', message: error.message });
    return true;
  }
  // SQLite's write lock kept by another process (paused or hung mid-write): no write can be recorded until it lets go.
  if (error instanceof StateBusyError) {
    if (ctx.stop.stop('state-held', error.held)) ctx.events.emit('run:stopping', { reason: 'state-held', message: error.held });
    return true;
  }
  if (!isLocalFault(error)) return false;
  const fault = error instanceof Error ? error.message : String(error);
  // Said after `stopping: ` as the fault alone; the run's end names it as what stopped the run.
  if (ctx.stop.stop('local-fault', `a local fault stopped the run: ${fault}`)) ctx.events.emit('run:stopping', { reason: 'local-fault', message: `a local fault: ${fault}` });
  return true;
}

/**
 * Logs an event without waiting for its commit (it rides the next group commit). Its failure is
 * never lost nor a crash: a local fault stops the run as any other; anything else is said.
 */
export function noteSoon(ctx: RunContext, type: EventType, key: string | null, data?: Record<string, unknown>): void {
  ctx.store.note(type, key, data).catch((error: unknown) => {
    if (!stopOnLocalFault(ctx, error)) ctx.events.emit('run:note', { message: `could not log ${type}: ${error instanceof Error ? error.message : String(error)}` });
  });
}
