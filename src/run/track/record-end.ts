import type { PlannedJob } from '../../plan/types.js';
import type { EventType, JobChange, JobRow, StateStore } from '../../state/index.js';
import type { KindAdapter, RemoteView, Resource } from '../adapters/index.js';
import { outputsOf, recordOutputLinks } from '../outputs/output-links.js';
import { recordItemOutcomes } from './record-items.js';

/** The statuses a job takes when the service says its work is over. */
export type EndStatus = 'done' | 'failed' | 'rejected';

/** The status a finished read leaves a job in: a job the service rejected (at its review) is its own state, not a failure. */
export const endOf = (view: RemoteView): EndStatus => (view.phase === 'done' ? 'done' : view.phase === 'rejected' ? 'rejected' : 'failed');

export interface RecordedEnd {
  row: JobRow;
  /** The cost recorded: the service's, else the kind's fixed price; null when neither is known. */
  creditsUsed: number | null;
}

/**
 * Records that the service says a job's work is over, as a read at `at` showed it (`view` of `resource`):
 * the tracker's way, and `reelpipe resolve --adopt`'s for a remote job found already ended. One
 * change: the remote status and answer, the cost, the failed reason and when; for a done job,
 * its files' links in the same transaction (the download then commits only what it fetched).
 * Policy: with no reported cost and no fixed price the reservation stays on the row, since it is
 * what the ledger counts (never 0 for a cost not known). `extra` adds columns (a remote id, when
 * it was sent); `data` adds to the event. Called inside the caller's transaction.
 */
export function recordEnd(
  store: StateStore,
  job: { key: string; planned: Pick<PlannedJob, 'download' | 'request'> | undefined; adapter: KindAdapter },
  to: EndStatus,
  seen: { resource: Resource; view: RemoteView; at: number },
  event: { type: EventType; data?: Record<string, unknown>; extra?: JobChange },
): RecordedEnd {
  const { view, resource } = seen;
  const creditsUsed = view.creditsUsed ?? job.adapter.fixedCredits ?? null;
  // A job of items (HTML ads): what its remote job made of each, before its files' links are read from them.
  if (job.adapter.items) recordItemOutcomes(store, job.key, job.planned, job.adapter, { resource, view, remoteId: event.extra?.remoteId });
  const row = store.transition(job.key, to, {
    ...event.extra,
    remoteStatus: view.remoteStatus,
    result: resource,
    creditsUsed,
    ...(creditsUsed === null ? {} : { creditsReserved: 0 }),
    failedReason: view.failedReason,
    finishedAt: seen.at,
  }, event.type, { remoteStatus: view.remoteStatus, creditsUsed, failedReason: view.failedReason, ...event.data });
  if (to === 'done') recordOutputLinks(store, job.key, outputsOf(store, job.key, job.planned, job.adapter, resource));
  return { row, creditsUsed };
}
