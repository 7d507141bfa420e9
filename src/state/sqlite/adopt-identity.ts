import type Database from 'better-sqlite3';
import type { Clock } from '../../util/clock.js';
import { adoptedEvent, adoptionSource, distinctManifestsSql, refusalOf, type AdoptionFacts } from '../adopt-sources.js';
import type { Adoption } from '../state-reader.js';
import { appendEvent } from './events.js';
import { openStateDb, openStateDbReadOnly } from './open-db.js';

/**
 * StateReader.adoptIdentity on SQLite: the rows an older reelpipe keyed by a manifest's real path
 * re-keyed to its identity (`project/name`), in one IMMEDIATE transaction.
 *
 * In two phases, so that a state with nothing to re-key is never written (nor migrated): first,
 * read-only, the path-keyed manifests of the state are listed and `identityOf` asked about each
 * (it may read their files: never inside a transaction); then, only when exactly one path maps
 * to the identity and nothing refuses it, the database is opened for writing and every check
 * made again inside the transaction that re-keys — another process may have re-keyed it
 * meanwhile. Every table with a `manifest` column is re-keyed, found from the schema itself, so
 * a table added later is not forgotten; the lock's row is renamed (dropped when the identity
 * holds one already: that one is the live holder's). Foreign keys (attempts, outputs and
 * job_results to jobs) are checked at the commit (defer_foreign_keys), parents and children being
 * renamed in turn.
 */
export async function adoptIdentityAt(
  dbPath: string,
  identity: string,
  path: string,
  identityOf: (key: string) => Promise<string | undefined>,
  clock: Clock,
): Promise<Adoption> {
  const keys = readOnly(dbPath, (db) => keyedManifests(db, identity));
  if (!keys || keys.length === 0) return { adopted: null };
  const chosen = await adoptionSource(keys, identity, path, identityOf);
  if (!('source' in chosen)) return chosen;
  const { source } = chosen;
  const refused = readOnly(dbPath, (db) => refusal(db, identity, source, clock.now()));
  if (refused) return refused;
  const db = openStateDb(dbPath);
  try {
    return db.transaction((): Adoption => {
      if (!holdsRows(db, source)) return { adopted: null };
      const again = refusal(db, identity, source, clock.now());
      if (again) return again;
      db.pragma('defer_foreign_keys = ON');
      const jobs = (db.prepare('SELECT count(*) FROM jobs WHERE manifest = ?').pluck().get(source) as number);
      // Where its runs ran from, kept as they leave the path: "last run from PATH" needs it.
      db.prepare('UPDATE runs SET manifest_path = coalesce(manifest_path, ?) WHERE manifest = ?').run(source, source);
      let runs = 0;
      for (const table of manifestTables(db)) {
        const changed = db.prepare(`UPDATE ${table} SET manifest = ? WHERE manifest = ?`).run(identity, source).changes;
        if (table === 'runs') runs = changed;
      }
      const held = db.prepare('SELECT 1 FROM locks WHERE name = ?').get(identity) !== undefined;
      const lock = held ? db.prepare('DELETE FROM locks WHERE name = ?').run(source) : db.prepare('UPDATE locks SET name = ? WHERE name = ?').run(identity, source);
      appendEvent(db, clock.now(), 'manifest:adopted', { manifest: identity }, adoptedEvent(source, { jobs, runs }, { changed: lock.changes > 0, held }));
      return { adopted: { path: source, jobs, runs } };
    }).immediate();
  } finally {
    db.close();
  }
}

/**
 * The manifests other than `identity` that hold jobs or runs, as keys: every other key a row can
 * have (a charge, an event, a lock) belongs to a manifest that has one of those. Every command
 * asks, so each table is walked one manifest at a time down its index (jobs_by_manifest,
 * runs_by_manifest): a step per manifest, not a read of each of its 100,000 jobs.
 */
function keyedManifests(db: Database.Database, identity: string): string[] {
  if (!hasTable(db, 'jobs')) return [];
  const keys = new Set([...(db.prepare(distinctManifestsSql('jobs')).pluck().all() as string[]), ...(db.prepare(distinctManifestsSql('runs')).pluck().all() as string[])]);
  keys.delete(identity);
  return [...keys];
}

/** Why the rows of `source` must not become `identity`'s now, or undefined. */
function refusal(db: Database.Database, identity: string, source: string, now: number): Adoption | undefined {
  const lock = db.prepare('SELECT host, pid, heartbeat_at FROM locks WHERE name = ?').get(source) as AdoptionFacts['lock'];
  const shared = db
    .prepare('SELECT key FROM jobs WHERE manifest = ? AND key IN (SELECT key FROM jobs WHERE manifest = ?) ORDER BY key LIMIT 5')
    .pluck()
    .all(source, identity) as string[];
  const recorded = shared.length > 0 && hasColumn(db, 'runs', 'manifest_path');
  const identityPath = recorded
    ? ((db.prepare('SELECT manifest_path FROM runs WHERE manifest = ? AND manifest_path IS NOT NULL ORDER BY id DESC LIMIT 1').pluck().get(identity) as string | undefined) ?? null)
    : null;
  return refusalOf(source, { lock, shared, identityPath }, now);
}

function holdsRows(db: Database.Database, manifest: string): boolean {
  return db.prepare('SELECT 1 FROM jobs WHERE manifest = ? UNION ALL SELECT 1 FROM runs WHERE manifest = ? LIMIT 1').get(manifest, manifest) !== undefined;
}

/** Every table with a `manifest` column, as the schema has them. */
function manifestTables(db: Database.Database): string[] {
  const tables = db
    .prepare("SELECT m.name FROM sqlite_master m JOIN pragma_table_info(m.name) c WHERE m.type = 'table' AND c.name = 'manifest' ORDER BY m.name")
    .pluck()
    .all() as string[];
  return tables.filter((t) => /^[a-z_]+$/.test(t));
}

function hasTable(db: Database.Database, table: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) !== undefined;
}

function hasColumn(db: Database.Database, table: string, column: string): boolean {
  return (db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).some((c) => c.name === column);
}

/** `read` on the state at `dbPath` opened read-only; undefined without one. */
function readOnly<T>(dbPath: string, read: (db: Database.Database) => T): T | undefined {
  const db = openStateDbReadOnly(dbPath);
  try {
    return db && read(db);
  } finally {
    db?.close();
  }
}
