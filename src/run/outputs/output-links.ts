import type { PlannedJob } from '../../plan/types.js';
import type { StateStore } from '../../state/index.js';
import type { KindAdapter, OutputSpec, Resource } from '../adapters/index.js';

/** Marks the text outputs (which have no URL) in the outputs table. */
const INLINE_URL = 'inline:';

/**
 * The files a finished job offers; none when its step downloads nothing. A job of items (HTML ads)
 * offers each made item's file, whichever of its attempts made it, at the item's place (so a
 * retry's files join the earlier ones): read from its recorded items, not from one answer.
 */
export function outputsOf(store: StateStore, key: string, planned: Pick<PlannedJob, 'download'> | undefined, adapter: KindAdapter, result: Resource | null): OutputSpec[] {
  if (planned?.download === false) return [];
  if (adapter.items) {
    const media = adapter.items.media;
    return store.items(key).flatMap((item) => (item.state === 'done' && item.url ? [{ media, url: item.url, suffix: item.item, idx: item.idx }] : []));
  }
  return result ? adapter.view(result).outputs : [];
}

/**
 * Records the links of a job's files (see StateStore.setOutputs). Called inside the transaction
 * that records the job finished, so its download adds no commit of its own for them.
 */
export function recordOutputLinks(store: StateStore, key: string, outputs: readonly OutputSpec[]): void {
  store.setOutputs(key, outputs.map((o) => o.url ?? INLINE_URL), outputs.map((o, i) => o.idx ?? i));
}
