import type Database from 'better-sqlite3';
import { cachedCatalogueOf, plannedItemsOf, type CachedCatalogue } from '../catalogue-rows.js';
import { openStateDb, openStateDbReadOnly } from './open-db.js';
import { statement } from './statements.js';

export type { CachedCatalogue } from '../catalogue-rows.js';

export function writeCatalogue(db: Database.Database, service: string, name: string, body: unknown, at: number): void {
  statement(db, `INSERT INTO catalogues (service, name, fetched_at, body) VALUES (?, ?, ?, ?)
    ON CONFLICT (service, name) DO UPDATE SET fetched_at = excluded.fetched_at, body = excluded.body`).run(service, name, at, JSON.stringify(body));
}

export function readCatalogue(db: Database.Database, service: string, name: string): CachedCatalogue | undefined {
  const row = statement(db, 'SELECT fetched_at AS fetchedAt, body FROM catalogues WHERE service = ? AND name = ?').get(service, name) as { fetchedAt: number; body: string } | undefined;
  return cachedCatalogueOf(service, name, row);
}

/**
 * The cached catalogue in the state database at `dbPath`; none when there is no database or no copy.
 * Read-only, never migrating: planning reads it before the outputs folder's owner is checked, and
 * a database that is not the one to use (emptied, another's) must be left exactly as it is.
 */
export function readCachedCatalogue(dbPath: string, service: string, name: string): CachedCatalogue | undefined {
  const db = openWithTable(dbPath, 'catalogues');
  if (!db) return undefined;
  try {
    return readCatalogue(db, service, name);
  } finally {
    db.close();
  }
}

/**
 * The styles each sent `style_ids: all` job of `manifest` was first planned with, by the key of the
 * request it was expanded from, in the order the jobs were first recorded: how `all` keeps the
 * jobs already sent as they were. Jobs still planned (never sent) are left out: theirs may change.
 */
export function readPlannedItems(db: Database.Database, manifest: string): Map<string, string[][]> {
  const rows = statement(db, "SELECT planned_items FROM jobs WHERE manifest = ? AND planned_items IS NOT NULL AND status <> 'planned' ORDER BY rowid", { pluck: true })
    .all(manifest) as string[];
  return plannedItemsOf(rows);
}

/** readPlannedItems of the state database at `dbPath` (read-only, never migrating: see readCachedCatalogue); empty without one. */
export function readPlannedItemsAt(dbPath: string, manifest: string): Map<string, string[][]> {
  const db = openWithColumn(dbPath, 'jobs', 'planned_items');
  if (!db) return new Map();
  try {
    return readPlannedItems(db, manifest);
  } finally {
    db.close();
  }
}

/** Keeps `body` as the service's catalogue `name`, read at `at`, in the state database at `dbPath` (made if missing). */
export function cacheCatalogueAt(dbPath: string, service: string, name: string, body: unknown, at: number): void {
  const db = openStateDb(dbPath);
  try {
    writeCatalogue(db, service, name, body, at);
  } finally {
    db.close();
  }
}

/** The database at `dbPath` opened read-only when it has `table`; else undefined (and nothing written). */
function openWithTable(dbPath: string, table: string): Database.Database | undefined {
  const db = openStateDbReadOnly(dbPath);
  if (!db) return undefined;
  if (db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table)) return db;
  db.close();
  return undefined;
}

/** As openWithTable, for a column of `table` (a database from before it has none to read). */
function openWithColumn(dbPath: string, table: string, column: string): Database.Database | undefined {
  const db = openWithTable(dbPath, table);
  if (db && (db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).some((c) => c.name === column)) return db;
  db?.close();
  return undefined;
}
