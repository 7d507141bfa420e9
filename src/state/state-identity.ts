import { openStateDbReadOnly } from './open-db.js';
import type { StateIdentity } from './outputs-owner.js';

/**
 * The identity of the state database at `path` as a read-only command (`plan`) sees it, for the
 * outputs folder's ownership check: no lock, nothing written, nothing migrated. A database that is
 * missing, zero bytes long or older than its identity (schema 8) is what a run would make of it: a
 * new identity (never one an outputs folder records), knowing the jobs it holds — none when empty.
 */
export function readStateIdentity(path: string, manifest: string): StateIdentity {
  const fresh: StateIdentity = { id: '', path, createdAt: 'at an unknown time', jobsKnown: 0 };
  const db = openStateDbReadOnly(path);
  if (!db) return fresh;
  try {
    const tables = new Set(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]);
    const meta = tables.has('meta')
      ? new Map((db.prepare('SELECT key, value FROM meta').all() as { key: string; value: string }[]).map((r) => [r.key, r.value]))
      : new Map<string, string>();
    const jobsKnown = tables.has('jobs') ? (db.prepare('SELECT count(*) FROM jobs WHERE manifest = ?').pluck().get(manifest) as number) : 0;
    return { ...fresh, id: meta.get('state_id') ?? '', createdAt: meta.get('created_at') ?? fresh.createdAt, jobsKnown };
  } finally {
    db.close();
  }
}
