import type { PlannedJob } from '../../plan/types.js';
import type { EventType, JobChange, JobRow, JobStatus, JobWrite } from '../../state/index.js';
import type { KindAdapter, RemoteView, Resource } from '../adapters/index.js';
import { outputLinks } from '../outputs/output-links.js';
import { itemOutcomes } from './record-items.js';

/** The statuses a job takes when the service says its work is over. */
export type EndStatus = 'done' | 'failed' | 'rejected';

/** The status a finished read leaves a job in: a job the service rejected (at its review) is its own state, not a failure. */
export const endOf = (view: RemoteView): EndStatus => (view.phase === 'done' ? 'done' : view.phase === 'rejected' ? 'rejected' : 'failed');

/** The statuses a read of the service may move a job from: whatever moved it on since is newer than the answer. */
export const IN_FLIGHT: readonly JobStatus[] = ['submitted', 'running'];

export interface EndWrite {
  write: JobWrite;
  /** The cost recorded: the service's, else the kind's fixed price; null when neither is known. */
  creditsUsed: number | null;
}

/**
 * The write that records that the service says a job's work is over, as a read at `at` showed it
 * (`view` of `resource`): the tracker's way, and `reelpipe resolve --adopt`'s for a remote job
 * found already ended. One write: the remote status and answer, the cost, the failed reason and
 * when; for a job of items, what became of each; for a done job, its files' links (the download
 * then commits only what it fetched). Policy: with no reported cost and no fixed price the
 * reservation stays on the row, since it is what the ledger counts (never 0 for a cost not
 * known). `extra` adds columns (a remote id, when it was sent); `data` adds to the event;
 * `onlyFrom` guards it. `job.row` is the job as the caller read it: the request it sent.
 */
export function endWrite(
  job: { row: Pick<JobRow, 'key' | 'request' | 'remoteId'>; planned: Pick<PlannedJob, 'download' | 'request'> | undefined; adapter: KindAdapter },
  to: EndStatus,
  seen: { resource: Resource; view: RemoteView; at: number },
  event: { type: EventType; data?: Record<string, unknown>; extra?: JobChange; onlyFrom?: readonly JobStatus[] },
): EndWrite {
  const { view, resource } = seen;
  const creditsUsed = view.creditsUsed ?? job.adapter.fixedCredits ?? null;
  const change: JobChange = {
    ...event.extra,
    remoteStatus: view.remoteStatus,
    result: resource,
    creditsUsed,
    ...(creditsUsed === null ? {} : { creditsReserved: 0 }),
    failedReason: view.failedReason,
    finishedAt: seen.at,
  };
  const write: JobWrite = {
    key: job.row.key,
    ...(event.onlyFrom ? { onlyFrom: event.onlyFrom } : {}),
    // A job of items (HTML ads): what its remote job made of each, before its files' links are read from them.
    ...(job.adapter.items ? itemOutcomes(job.row, job.planned, job.adapter, { resource, view, remoteId: event.extra?.remoteId }) : {}),
    move: { to, change, type: event.type, data: { remoteStatus: view.remoteStatus, creditsUsed, failedReason: view.failedReason, ...event.data } },
    ...(to === 'done' ? { outputs: outputLinks(job.planned, job.adapter, resource) } : {}),
  };
  return { write, creditsUsed };
}
