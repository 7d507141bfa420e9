import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, type Store } from '../../../src/state/index.js';
import { storeConformance } from './store-conformance.js';

/** The SQLite store against the conformance suite: a real database file in a fresh folder per test. */
storeConformance('SQLite', async (clock) => {
  const dir = mkdtempSync(join(tmpdir(), 'reelpipe-conformance-'));
  const location = join(dir, 'state.db');
  const opened: Store[] = [await openStore(location, clock)];
  return {
    store: opened[0]!,
    location,
    async reopen() {
      const store = await openStore(location, clock);
      opened.push(store);
      return store;
    },
    async cleanup() {
      // close() is idempotent: a store the test closed already is left as it is.
      for (const store of opened) await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
