import { ApiNotFoundError, type CallOptions, type ServiceClient } from '../../api/index.js';
import type { Store } from '../../state/index.js';
import type { KindAdapter, Resource } from '../adapters/index.js';
import { matchesIntent } from './match-intent.js';

/** A remote job confirmed as the one an attempt made, or why it cannot be. */
export type Confirmation = { resource: Resource } | { refused: string };

/**
 * Checks by a GET that `remoteId` is the job an attempt's request made, before anyone adopts it
 * (from a webhook delivery, or on the operator's word with `reelpipe resolve --adopt`). Policy:
 * adopting a wrong id would hand one job's money and files to another, so each condition must
 * hold — the kind can be read and the service knows the id under this kind; what it holds
 * matches every field the attempt sent (match-intent.ts); and no other job or attempt (of any
 * manifest or kind: remote ids are unique) ever recorded the id — it belongs to nobody else.
 */
export async function confirmRemote(
  client: ServiceClient,
  store: Store,
  adapter: KindAdapter,
  remoteId: string,
  request: Record<string, unknown>,
  attemptId: number | null,
  call?: CallOptions,
): Promise<Confirmation> {
  if (!adapter.read) return { refused: `${adapter.kind} jobs cannot be read, so ${remoteId} cannot be checked` };
  // The attempt's own delivery recorded the id on it: that is no other owner.
  const owner = await store.remoteIdOwner(remoteId, attemptId);
  if (owner) {
    return { refused: `${remoteId} already belongs to job ${owner.key}${owner.manifest === store.manifest ? '' : ` of ${owner.manifest}`}` };
  }
  let resource: Resource;
  try {
    resource = await adapter.read(client, remoteId, call);
  } catch (error) {
    if (error instanceof ApiNotFoundError) return { refused: `the service knows no ${adapter.kind} ${remoteId}` };
    throw error;
  }
  if (!matchesIntent(request, resource)) return { refused: `${adapter.kind} ${remoteId} does not match what the attempt asked for` };
  return { resource };
}
