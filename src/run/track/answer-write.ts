import type { PlannedJob } from '../../plan/types.js';
import type { JobRow, JobWrite } from '../../state/index.js';
import type { KindAdapter, RemoteView, Resource } from '../adapters/index.js';
import { endOf, endWrite, IN_FLIGHT } from './record-end.js';

/** An answer's write (none when it changes nothing) and what the tracker does once it is committed. */
export interface Recording {
  view: RemoteView;
  resource: Resource;
  write?: JobWrite;
  /** The job was already running before this answer (its start is not announced again). */
  wasRunning?: boolean;
  ended?: boolean;
  creditsUsed?: number | null;
}

/**
 * What a read's answer writes, decided on the job as the tracker last wrote it (`job`): a job
 * still under way moves to `running` when its remote status changed, an ended one to its end
 * (record-end.ts). Guarded by IN_FLIGHT: an answer only moves a job the database still has in
 * flight, since whatever moved it on (a finish already recorded, a download) is newer.
 */
export function answerWrite(
  job: JobRow,
  planned: PlannedJob | undefined,
  adapter: KindAdapter,
  seen: { resource: Resource; view: RemoteView; at: number },
): Recording {
  const { view, resource } = seen;
  if (view.phase === 'pending') {
    if (view.remoteStatus === job.remoteStatus && job.status === 'running') return { view, resource };
    const move = { to: 'running' as const, change: { remoteStatus: view.remoteStatus, result: resource }, type: 'job:status' as const, data: { remoteStatus: view.remoteStatus } };
    return { view, resource, write: { key: job.key, onlyFrom: IN_FLIGHT, move }, wasRunning: job.status === 'running' };
  }
  const end = endOf(view);
  const type = view.phase === 'done' ? 'job:done' : end === 'rejected' ? 'job:rejected' : 'job:failed';
  const { write, creditsUsed } = endWrite({ row: job, planned, adapter }, end, seen, { type, onlyFrom: IN_FLIGHT });
  return { view, resource, write, creditsUsed, ended: true };
}
