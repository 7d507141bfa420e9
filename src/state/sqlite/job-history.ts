import type Database from 'better-sqlite3';
import { earlierRequests, earlierVersions, type SlotValues } from '../earlier-versions.js';
import { planScope, type PlanJobs, type PlanScope } from '../plan-scope.js';
import { openStateDbCurrent } from './open-db.js';
import { statement } from './statements.js';

/** The key and place of each of the manifest's rows, oldest first (created_at, then key). */
export function readPlaces(db: Database.Database, manifest: string): SlotValues[] {
  return statement(db, 'SELECT key, step, output_name FROM jobs WHERE manifest = ? ORDER BY created_at, key', { raw: true }).all(manifest) as SlotValues[];
}

/** The earlier versions of each job of a plan (earlier-versions.ts), from the manifest's rows oldest first. */
function readEarlierVersions(db: Database.Database, manifest: string, scope: PlanScope, planJobs: PlanJobs): Map<string, string[]> {
  return earlierVersions(readPlaces(db, manifest), scope, planJobs);
}

/**
 * The newest earlier version of each job of a plan that has one, with the request it holds (the one
 * sent, once sent): what `plan` says changed in a re-created job. Read-only; none without a database.
 */
export function readEarlierRequestsAt(dbPath: string, manifest: string, planJobs: PlanJobs): Map<string, { key: string; request: Record<string, unknown> }> {
  const db = openStateDbCurrent(dbPath);
  if (!db) return new Map();
  try {
    const select = statement(db, 'SELECT request FROM jobs WHERE manifest = ? AND key = ?', { pluck: true });
    return earlierRequests(readEarlierVersions(db, manifest, planScope(planJobs), planJobs), (key) => select.get(manifest, key) as string | undefined);
  } finally {
    db.close();
  }
}
