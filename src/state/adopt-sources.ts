import { LOCK_STALE_AFTER_MS } from './lock/lock-policy.js';
import type { Adoption } from './state-reader.js';

/**
 * The rules of StateReader.adoptIdentity that hold whatever store keeps the rows (each store
 * reads and re-keys them in its own SQL: sqlite/adopt-identity.ts, postgres/pg-adopt-identity.ts):
 * which path-keyed manifest becomes the identity's, why it may not, and what the event says.
 */

/**
 * Of the state's manifest keys other than the identity (`keys`), the one whose rows become
 * `identity`'s: `path` (where the manifest was read from this time) first, then any key
 * `identityOf` maps to the identity (asked outside any transaction: it may read their files).
 * Two or more such keys: refused, naming them; none: nothing to adopt.
 */
export async function adoptionSource(keys: readonly string[], identity: string, path: string, identityOf: (key: string) => Promise<string | undefined>): Promise<{ source: string } | Adoption> {
  const sources: string[] = [];
  for (const key of keys) {
    if (key === path || (await identityOf(key)) === identity) sources.push(key);
  }
  const [source, ...more] = sources.sort((a, b) => Number(b === path) - Number(a === path) || a.localeCompare(b));
  if (source === undefined) return { adopted: null };
  if (more.length > 0) return { refused: 'paths', paths: sources };
  return { source };
}

/** What the state says of `source` and `identity` that may refuse the adoption (see refusalOf). */
export interface AdoptionFacts {
  /** The lock held under the source's name, if any. */
  lock: { host: string; pid: number; heartbeat_at: number } | undefined;
  /** A few keys of jobs both the source and the identity record (in key order). */
  shared: string[];
  /** Where the identity last ran from, when its runs say. */
  identityPath: string | null;
}

/**
 * Why the rows of `source` must not become the identity's at `now`, or undefined: a run under
 * the source still beats its lock (an older reelpipe at work: re-keying under it would lose its
 * writes), or some job is recorded by both (two manifests' records of one job).
 */
export function refusalOf(source: string, facts: AdoptionFacts, now: number): Adoption | undefined {
  const { lock, shared, identityPath } = facts;
  if (lock && now - lock.heartbeat_at <= LOCK_STALE_AFTER_MS) return { refused: 'locked', path: source, host: lock.host, pid: lock.pid };
  if (shared.length === 0) return undefined;
  return { refused: 'jobs', path: source, keys: shared, identityPath };
}

/** The `manifest:adopted` event's data: what was re-keyed, and what became of the source's lock row. */
export function adoptedEvent(source: string, moved: { jobs: number; runs: number }, lock: { changed: boolean; held: boolean }): Record<string, unknown> {
  return { from: source, jobs: moved.jobs, runs: moved.runs, lock: lock.changed ? (lock.held ? 'dropped' : 'renamed') : null };
}

/**
 * The manifests `table` holds, walked down its (manifest, …) index one manifest at a time — a
 * step per manifest, not a read of each of its 100,000 rows: the same text in both dialects.
 */
export const distinctManifestsSql = (table: 'jobs' | 'runs') => `WITH RECURSIVE m(v) AS (
    SELECT min(manifest) FROM ${table}
    UNION ALL SELECT (SELECT min(manifest) FROM ${table} WHERE manifest > m.v) FROM m WHERE m.v IS NOT NULL
  ) SELECT v FROM m WHERE v IS NOT NULL`;
