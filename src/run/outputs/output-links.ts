import type { PlannedJob } from '../../plan/types.js';
import type { JobWrite, Store } from '../../state/index.js';
import type { KindAdapter, OutputSpec, Resource } from '../adapters/index.js';

/** Marks the text outputs (which have no URL) in the outputs table. */
const INLINE_URL = 'inline:';

/**
 * The files a finished job offers; none when its step downloads nothing. A job of items (HTML ads)
 * offers each made item's file, whichever of its attempts made it, at the item's place (so a
 * retry's files join the earlier ones): read from its recorded items, not from one answer.
 */
export async function outputsOf(store: Store, key: string, planned: Pick<PlannedJob, 'download'> | undefined, adapter: KindAdapter, result: Resource | null): Promise<OutputSpec[]> {
  if (planned?.download === false) return [];
  if (adapter.items) {
    const media = adapter.items.media;
    return (await store.items(key)).flatMap((item) => (item.state === 'done' && item.url ? [{ media, url: item.url, suffix: item.item, idx: item.idx }] : []));
  }
  return result ? adapter.view(result).outputs : [];
}

/** The links of `outputs` as a write records them: each URL (a text output has none) at its place. */
export function linksOf(outputs: readonly OutputSpec[]): { urls: string[]; places: number[] } {
  return { urls: outputs.map((o) => o.url ?? INLINE_URL), places: outputs.map((o, i) => o.idx ?? i) };
}

/**
 * The links a finished job's write records for its files, in the transaction that records it
 * finished (its download then adds no commit of its own for them). A job of items links the
 * items made, as recorded in that same write.
 */
export function outputLinks(planned: Pick<PlannedJob, 'download'> | undefined, adapter: KindAdapter, result: Resource): NonNullable<JobWrite['outputs']> {
  if (planned?.download === false) return { urls: [], places: [] };
  return adapter.items ? 'items' : linksOf(adapter.view(result).outputs);
}
