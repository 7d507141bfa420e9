import type { JobState } from './job-row.js';
import type { Store } from './store.js';

/**
 * The manifest's job states a page of `limit` at a time (Store.jobStatePage, key order), until none
 * is left: a reader of every job that never holds more than a page. `recorded`: past planned only.
 */
export async function* jobStatePages(store: Pick<Store, 'jobStatePage'>, limit: number, recorded = false): AsyncGenerator<JobState[]> {
  for (let after: string | null = null, page: JobState[]; (page = await store.jobStatePage(after, limit, recorded)).length > 0; after = page.at(-1)!.key) yield page;
}
