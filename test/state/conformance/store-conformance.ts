import { describe } from 'vitest';
import { account } from './account.js';
import { adoptIdentity } from './adopt-identity.js';
import { factReads } from './fact-reads.js';
import { subjectOf, type OpenStore } from './harness.js';
import { lockAndClaims } from './lock-and-claims.js';
import { planAndMoves } from './plan-and-moves.js';
import { planRecords } from './plan-records.js';
import { readers } from './readers.js';
import { recoveryAndIdentity } from './recovery-and-identity.js';
import { retriesAndHooks } from './retries-and-hooks.js';

export type { OpenedStore, OpenStore } from './harness.js';

/**
 * The Store's conformance suite (after river's riverdriver/riverdrivertest): what every store
 * must do, pinned through the Store interface alone (src/state/store.ts), so that it runs
 * unchanged against each store. A store's test file calls it once with a factory that opens a
 * fresh, empty state on the clock it is given:
 *
 *   storeConformance('SQLite', async (clock) => { …; return { store, location, reopen, cleanup }; });
 *
 * Every test opens its own state (beforeEach) and cleans it up (afterEach). Time moves only by
 * `clock.advance`; nothing sleeps.
 */
export function storeConformance(name: string, open: OpenStore): void {
  describe(`the ${name} store`, () => {
    const subject = subjectOf(open);
    planAndMoves(subject);
    planRecords(subject);
    recoveryAndIdentity(subject);
    readers(subject);
    factReads(subject);
    retriesAndHooks(subject);
    lockAndClaims(subject);
    adoptIdentity(subject);
    account(subject);
  });
}
