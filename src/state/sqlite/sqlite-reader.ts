import type { StateReader } from '../state-reader.js';
import { adoptIdentityAt } from './adopt-identity.js';
import { cacheCatalogueAt, readCachedCatalogue, readPlannedItemsAt } from './catalogue-cache.js';
import { readFactsAt, WindowConnection } from './facts-reads.js';
import { readEarlierRequestsAt } from './job-history.js';
import { readJobMoney, readJobStatuses } from './job-money.js';
import { recordRefusedStart } from './refused-start.js';
import { readHookRunsAt, readInDoubtAt, readLastWorkAt, readMembersAt, readRunList, readRunRecord } from './run-reads.js';
import { readStateIdentity } from './state-identity.js';

/**
 * The StateReader (state-reader.ts) of the SQLite file at `path`: each read opens it read-only and
 * closes it, but the reads of a part of the facts by keys (the report's windows), which share one
 * connection until `release` (WindowConnection says why).
 */
export function sqliteReader(path: string): StateReader {
  const windows = new WindowConnection(path);
  return {
    location: path,
    facts: async (manifest, planJobs, wanted) => (wanted.part && 'keys' in wanted.part ? windows.read(manifest, wanted.part.keys) : readFactsAt(path, manifest, planJobs, wanted)),
    release: async () => windows.close(),
    runs: async (manifest, limit, all) => readRunList(path, manifest, limit, all),
    run: async (manifest, runId, credits = true) => readRunRecord(path, manifest, runId, credits),
    lastWork: async (manifest) => readLastWorkAt(path, manifest),
    members: async (manifest) => readMembersAt(path, manifest),
    hookRuns: async (manifest) => readHookRunsAt(path, manifest),
    inDoubt: async (manifest) => readInDoubtAt(path, manifest),
    identity: async (manifest) => readStateIdentity(path, manifest),
    jobStatuses: async (manifest) => readJobStatuses(path, manifest),
    jobMoney: async (manifest, planJobs) => readJobMoney(path, manifest, planJobs),
    earlierRequests: async (manifest, planJobs) => readEarlierRequestsAt(path, manifest, planJobs),
    cachedCatalogue: async (service, name) => readCachedCatalogue(path, service, name),
    plannedItems: async (manifest) => readPlannedItemsAt(path, manifest),
    cacheCatalogue: async (service, name, body, at) => cacheCatalogueAt(path, service, name, body, at),
    recordRefusedStart: async (start, clock) => recordRefusedStart(path, start, clock),
    adoptIdentity: (identity, manifestPath, identityOf, clock) => adoptIdentityAt(path, identity, manifestPath, identityOf, clock),
  };
}
