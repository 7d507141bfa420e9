import type { Store } from '../../../src/state/index.js';
import { PgStore } from '../../../src/state/postgres/pg-store.js';
import { freshPgDatabase } from '../../helpers/pg-database.js';
import { storeConformance } from './store-conformance.js';

/** The PostgreSQL store against the conformance suite: a database of its own per test, cloned from the run's migrated template. */
storeConformance('PostgreSQL', async (clock) => {
  const database = await freshPgDatabase();
  const opened: Store[] = [await PgStore.open(database.url, clock)];
  return {
    store: opened[0]!,
    location: database.url,
    async reopen() {
      const store = await PgStore.open(database.url, clock);
      opened.push(store);
      return store;
    },
    async cleanup() {
      // close() is idempotent: a store the test closed already is left as it is.
      for (const store of opened) await store.close();
      await database.drop();
    },
  };
});
