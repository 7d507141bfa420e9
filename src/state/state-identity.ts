import type { StateIdentity } from './outputs-owner.js';

/**
 * The identity of the state at `path` from its `meta` rows and the jobs of the manifest it knows.
 * A state older than its identity (SQLite's schema 8), or not made yet, has a new identity (never
 * one an outputs folder records) and knows no job.
 */
export function stateIdentityOf(path: string, meta: ReadonlyMap<string, string> = new Map(), jobsKnown = 0): StateIdentity {
  return { id: meta.get('state_id') ?? '', path, createdAt: meta.get('created_at') ?? 'at an unknown time', jobsKnown };
}
