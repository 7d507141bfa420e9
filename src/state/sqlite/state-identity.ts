import type Database from 'better-sqlite3';
import { openStateDbReadOnly } from './open-db.js';
import type { StateIdentity } from '../outputs-owner.js';
import { stateIdentityOf } from '../state-identity.js';

/**
 * The identity the open database `db` (at `path`) holds: the id it was made with, when, and how
 * many jobs of `manifest` it knows (outputs-owner.ts stateIdentityOf).
 */
export function identityOf(db: Database.Database, path: string, manifest: string): StateIdentity {
  const tables = new Set(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]);
  const meta = tables.has('meta')
    ? new Map((db.prepare('SELECT key, value FROM meta').all() as { key: string; value: string }[]).map((r) => [r.key, r.value]))
    : new Map<string, string>();
  const jobsKnown = tables.has('jobs') ? (db.prepare('SELECT count(*) FROM jobs WHERE manifest = ?').pluck().get(manifest) as number) : 0;
  return stateIdentityOf(path, meta, jobsKnown);
}

/**
 * The identity of the state database at `path` as a read-only command (`plan`) sees it, for the
 * outputs folder's ownership check: no lock, nothing written, nothing migrated. A database that is
 * missing or zero bytes long is what a run would make of it: a new identity, knowing no job.
 */
export function readStateIdentity(path: string, manifest: string): StateIdentity {
  const db = openStateDbReadOnly(path);
  if (!db) return stateIdentityOf(path);
  try {
    return identityOf(db, path, manifest);
  } finally {
    db.close();
  }
}
