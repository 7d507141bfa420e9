import type { PlannedJob } from '../../plan/types.js';
import type { Store } from '../../state/index.js';
import type { KindAdapter } from '../adapters/index.js';

/**
 * What an attempt of a job of items asks for: the planned items no earlier attempt has made (a
 * partly failed HTML ad job's retry resends only its failed styles), and their share of the job's
 * price — what the attempt reserves. Every other job asks for its whole request, at its whole price.
 */
export async function itemsToSend(store: Store, planned: PlannedJob, adapter: KindAdapter, request: Record<string, unknown>): Promise<{ request: Record<string, unknown>; share: number }> {
  const kind = adapter.items;
  if (!kind) return { request, share: 1 };
  const made = new Set((await store.items(planned.key)).filter((item) => item.state === 'done').map((item) => item.item));
  if (made.size === 0) return { request, share: 1 };
  const all = kind.requested(request);
  const rest = all.filter((item) => !made.has(item));
  return { request: kind.withOnly(request, rest), share: all.length === 0 ? 1 : rest.length / all.length };
}
