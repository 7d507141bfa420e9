import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { UsageError } from '../../errors.js';
import { isPostgresAddress, rememberAddress } from '../postgres/pg-url.js';
import type { StateTables } from './state-tables.js';

/**
 * The state at `location` as tables: a PostgreSQL address, or an SQLite file's path (relative to
 * `cwd`). A FROM file must exist (a missing one would be created empty and "copied").
 */
export async function openTables(location: string, cwd: string, role: 'FROM' | 'TO'): Promise<StateTables> {
  if (isPostgresAddress(location)) {
    const shown = rememberAddress(location, `state copy ${role}`);
    // Loaded on use: a command on an SQLite state never loads the PostgreSQL client.
    return (await import('../postgres/pg-tables.js')).pgTables(shown);
  }
  const path = resolve(cwd, location);
  if (role === 'FROM' && !existsSync(path)) throw new UsageError(`state copy: FROM ${path} does not exist: give the state file to copy (e.g. state/reelpipe.db)`);
  return (await import('../sqlite/sqlite-tables.js')).sqliteTables(path);
}
