import type { PlannedJob } from '../../plan/types.js';
import type { JobItemRow, JobRow, JobWrite } from '../../state/index.js';
import type { KindAdapter, RemoteView, Resource } from '../adapters/index.js';

/**
 * A job of items (HTML ads) ended at the service: what its remote job made of each item this
 * attempt asked for — made with its file's URL, or failed with its reason — at the item's place
 * in the planned request, and the failed items' refunds on the attempt's charge (derived from the
 * price rule: see adapters/html-ad-items.ts). Items of earlier attempts that this one did not ask
 * for keep their records. The parts of the write that moves the job (`job` is its row as sent).
 */
export function itemOutcomes(
  job: Pick<JobRow, 'request' | 'remoteId'>,
  planned: Pick<PlannedJob, 'request'> | undefined,
  adapter: KindAdapter,
  seen: { resource: Resource; view: RemoteView; remoteId?: string | null | undefined },
): Pick<JobWrite, 'items' | 'refund'> {
  const kind = adapter.items;
  if (!kind) return {};
  // The request this attempt sent (the job's row holds the last one sent), and the remote job it made.
  const asked = kind.requested(job.request);
  const remoteId = seen.remoteId ?? job.remoteId;
  const places = planned ? kind.requested(planned.request) : asked;
  const outcomes = kind.read(seen.resource, asked, seen.view.phase === 'done' ? null : seen.view.failedReason);
  const items: Omit<JobItemRow, 'jobKey'>[] = asked.map((item, i) => {
    const outcome = outcomes.get(item) ?? { state: 'failed' as const, url: null, failedReason: 'the service returned no ad for this item' };
    const place = places.indexOf(item);
    const failed = outcome.state === 'failed';
    return {
      idx: place === -1 ? places.length + i : place, item, state: outcome.state, failedReason: outcome.failedReason, attemptId: null, remoteId,
      url: outcome.url, refunded: failed ? kind.creditsEach : 0, refundDerived: failed,
    };
  });
  const refunded = items.reduce((sum, item) => sum + item.refunded, 0);
  return remoteId && refunded > 0 ? { items, refund: { remoteId, credits: refunded, derived: true } } : { items };
}
