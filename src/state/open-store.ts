import { systemClock, type Clock } from '../util/clock.js';
import { isPostgresAddress } from './postgres/pg-url.js';
import { SqliteStore } from './sqlite/sqlite-store.js';
import type { Store } from './store.js';

/**
 * Opens the state at `location` for a command that changes it — creating and migrating it if
 * needed: the one way every command opens the Store. A PostgreSQL address (`postgres://…`, as
 * locate.ts carries it) opens the PostgreSQL store, loaded on use so that an SQLite state never
 * loads the PostgreSQL client; anything else is an SQLite file's path.
 */
export async function openStore(location: string, clock: Clock = systemClock): Promise<Store> {
  if (isPostgresAddress(location)) return (await import('./postgres/pg-store.js')).PgStore.open(location, clock);
  return SqliteStore.open(location, clock);
}
