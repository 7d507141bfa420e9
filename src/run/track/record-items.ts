import type { PlannedJob } from '../../plan/types.js';
import type { JobItemRow, StateStore } from '../../state/index.js';
import type { KindAdapter, RemoteView, Resource } from '../adapters/index.js';

/**
 * A job of items (HTML ads) ended at the service: records what its remote job made of each item
 * this attempt asked for — made with its file's URL, or failed with its reason — at the item's
 * place in the planned request, and the failed items' refunds on the attempt's charge (derived
 * from the price rule: see adapters/html-ad-items.ts). Items of earlier attempts that this one did
 * not ask for keep their records. Runs inside the transaction that moves the job.
 */
export function recordItemOutcomes(
  store: StateStore,
  key: string,
  planned: Pick<PlannedJob, 'request'> | undefined,
  adapter: KindAdapter,
  seen: { resource: Resource; view: RemoteView; remoteId?: string | null | undefined },
): void {
  const kind = adapter.items;
  const job = store.job(key);
  if (!kind || !job) return;
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
  store.recordItems(key, items);
  const refunded = items.reduce((sum, item) => sum + item.refunded, 0);
  if (remoteId && refunded > 0) store.charges.refund(key, remoteId, refunded, true);
}
