import type { PlannedJob } from '../../plan/types.js';
import type { StateStore } from '../../state/index.js';
import type { KindAdapter, OutputSpec, Resource } from '../adapters/index.js';

/** Marks the text outputs (which have no URL) in the outputs table. */
const INLINE_URL = 'inline:';

/** The files a finished job offers, as its answer lists them; none when its step downloads nothing. */
export function outputsOf(planned: Pick<PlannedJob, 'download'> | undefined, adapter: KindAdapter, result: Resource | null): OutputSpec[] {
  return planned?.download === false || !result ? [] : adapter.view(result).outputs;
}

/**
 * Records the links of a job's files (see StateStore.setOutputs). Called inside the transaction
 * that records the job finished, so its download adds no commit of its own for them.
 */
export function recordOutputLinks(store: StateStore, key: string, outputs: readonly OutputSpec[]): void {
  store.setOutputs(key, outputs.map((o) => o.url ?? INLINE_URL));
}
