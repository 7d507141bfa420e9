import type { RefusedStart } from './sqlite/refused-start.js';
import type { Store } from './store.js';

/**
 * A start refused before its run opened the state, recorded through `store` (opened on the state
 * it would have used): a run that ended as it began, marked refused — the rows and events any
 * run's start and end write (sqlite/refused-start.ts says why, and why only into a state that exists).
 */
export async function recordRefusal(store: Store, start: RefusedStart): Promise<void> {
  store.useManifest(start.manifest);
  await store.startRun(start.host, start.pid, null, start.from ?? null);
  await store.finishRun(start.outcome, {}, start.refusal);
}
