import type Database from 'better-sqlite3';
import { openStateDbReadOnly } from '../../src/state/index.js';

/**
 * A read-only connection of its own to the state file at `path`: what the store under test has
 * committed (its events, its locks, its rows), for a test to look at. The Store answers in rows,
 * not SQL; what a test checks in the tables themselves it reads here, never by writing.
 */
export function peek(path: string): Database.Database {
  const db = openStateDbReadOnly(path);
  if (!db) throw new Error(`no state database at ${path}`);
  return db;
}
