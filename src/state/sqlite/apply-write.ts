import type { JobWrite, Written } from '../store.js';
import { linksOfItems } from '../job-moves.js';
import type { StateStore } from './job-store.js';

export { StaleWriteError } from '../stale-write.js';

/**
 * One JobWrite on SQLite, inside the caller's transaction, in its order: the guard, the attempt,
 * the items and refund, the move, the output links. The guard reads the job's status in the same
 * transaction as the write, so no move of another job (or of this one) can fall between them.
 */
export function applyWrite(engine: StateStore, write: JobWrite): Written {
  const { key } = write;
  // The status alone decides; the whole row (with its last read) is read only for a write refused.
  // Nothing below changes the job's status or doubt before its move, which starts from this read.
  const guard = write.onlyFrom ? engine.moveStart(key) : undefined;
  if (write.onlyFrom) {
    if (guard === undefined) throw new Error(`unknown job ${key}`);
    if (!write.onlyFrom.includes(guard.status)) return { row: engine.job(key)!, moved: false };
  }
  if (write.attempt) {
    const { id, state, remoteId, error } = write.attempt;
    const attemptId = id === 'open intent' ? openIntentOf(engine, key) : id;
    if (attemptId !== undefined) engine.closeAttempt(attemptId, state, { ...(remoteId === undefined ? {} : { remoteId }), ...(error === undefined ? {} : { error }) });
  }
  if (write.items) engine.recordItems(key, write.items);
  if (write.refund) engine.charges.refund(key, write.refund.remoteId, write.refund.credits, write.refund.derived);
  let row = write.move
    ? engine.transition(key, write.move.to === 'made' ? engine.madeStatus(key) : write.move.to, write.move.change ?? {}, write.move.type, write.move.data, guard)
    : undefined;
  if (write.outputs) {
    const links = write.outputs === 'items' ? linksOfItems(engine.items(key)) : write.outputs;
    engine.setOutputs(key, links.urls, links.places);
  }
  row ??= engine.job(key);
  if (!row) throw new Error(`unknown job ${key}`);
  return { row, moved: true };
}

/** The job's last attempt while it is still an open intent (no answer recorded), else undefined. */
function openIntentOf(engine: StateStore, key: string): number | undefined {
  const attempt = engine.lastAttempt(key);
  return attempt?.state === 'intent' ? attempt.id : undefined;
}
