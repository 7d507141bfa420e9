import { planScope } from '../plan-scope.js';
import { recordedJobMoney } from '../recorded-money.js';
import { recordRefusal } from '../record-refusal.js';
import type { StateReader } from '../state-reader.js';
import { stateIdentityOf } from '../state-identity.js';
import { adoptPgIdentity } from './pg-adopt-identity.js';
import { readPgJobMoney } from './pg-money.js';
import { readPgCatalogue, readPgPlannedItems, writePgCatalogue } from './pg-reads-catalogue.js';
import { readPgEarlierRequests, readPgFacts } from './pg-reads-facts.js';
import { readPgHookRuns, readPgIdentity, readPgInDoubt, readPgJobStatuses } from './pg-reads-jobs.js';
import { readPg, writePg } from './pg-reads-open.js';
import { readPgLastWork, readPgRunList, readPgRunRecord } from './pg-reads-runs.js';
import { PgStore } from './pg-store.js';
import { DATABASE_NOW } from './pg-lock.js';
import { memberRowOf, membersSql } from '../member-rows.js';
import { shownLocation } from './pg-url.js';

/**
 * The StateReader (state-reader.ts) of the PostgreSQL state at `location`: each read connects,
 * reads one snapshot of committed state, and ends its pool (pg-reads-open.ts says why). A
 * database with no schema yet reads as empty, as a missing SQLite file does; the answers are
 * SQLite's reader's, value for value. Its location is shown without a password.
 */
export function pgReader(location: string): StateReader {
  const shown = shownLocation(location);
  return {
    location: shown,
    facts: (manifest, planJobs, wanted) => readPg(location, undefined, (tx) => readPgFacts(tx, manifest, planJobs, wanted)),
    // Each read is on the process's pool for this address (pg-reads-open.ts): nothing is held for a reader.
    release: async () => undefined,
    runs: (manifest, limit, all) => readPg(location, { rows: [], runs: 0, refused: 0 }, (tx) => readPgRunList(tx, manifest, limit, all)),
    run: (manifest, runId, credits = true) => readPg(location, undefined, (tx) => readPgRunRecord(tx, manifest, runId, credits)),
    lastWork: (manifest) => readPg(location, { newest: null, worked: null }, (tx) => readPgLastWork(tx, manifest)),
    members: (manifest) => readPg(location, [], async (tx) => (await tx.query<Record<string, unknown>>(membersSql('$1', DATABASE_NOW), [manifest])).map(memberRowOf)),
    hookRuns: (manifest) => readPg(location, { byJob: new Map(), lastFinish: null }, (tx) => readPgHookRuns(tx, manifest)),
    inDoubt: (manifest) => readPg(location, [], (tx) => readPgInDoubt(tx, manifest)),
    // Never migrating, as SQLite's: `plan` asks before the outputs folder's owner is checked.
    identity: (manifest) => readPg(location, stateIdentityOf(shown), (tx) => readPgIdentity(tx, shown, manifest), 'as-is'),
    jobStatuses: (manifest) => readPg(location, new Map(), (tx) => readPgJobStatuses(tx, manifest)),
    jobMoney: (manifest, planJobs) => readPg(location, recordedJobMoney([], planScope(planJobs)), (tx) => readPgJobMoney(tx, manifest, planJobs)),
    earlierRequests: (manifest, planJobs) => readPg(location, new Map(), (tx) => readPgEarlierRequests(tx, manifest, planJobs)),
    cachedCatalogue: (service, name) => readPg(location, undefined, (tx) => readPgCatalogue(tx, service, name), 'as-is'),
    plannedItems: (manifest) => readPg(location, new Map(), (tx) => readPgPlannedItems(tx, manifest), 'as-is'),
    cacheCatalogue: (service, name, body, at) => writePg(location, (tx) => writePgCatalogue(tx, service, name, body, at)),
    recordRefusedStart: async (start, clock) => {
      const store = await PgStore.open(location, clock);
      try {
        await recordRefusal(store, start);
        return true;
      } finally {
        await store.close();
      }
    },
    adoptIdentity: (identity, path, identityOf, clock) => adoptPgIdentity(location, identity, path, identityOf, clock),
  };
}
