import { systemClock, type Clock } from '../util/clock.js';
import { SqliteStore } from './sqlite/sqlite-store.js';
import type { Store } from './store.js';

/**
 * Opens the state at `location` for a command that changes it — creating and migrating it if
 * needed: the one way every command opens the Store. Today a location is an SQLite file's path.
 */
export async function openStore(location: string, clock: Clock = systemClock): Promise<Store> {
  return SqliteStore.open(location, clock);
}
