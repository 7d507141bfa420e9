import type Database from 'better-sqlite3';
import { slotOf } from './charges.js';
import { planScope, type PlanScope } from './money.js';
import { openStateDbCurrent } from './open-db.js';
import { statement } from './statements.js';

/**
 * The earlier versions of each job of a plan: the manifest's jobs outside the plan in the same
 * place (step and output name) — the jobs of a row before it was edited — by the plan's job key,
 * oldest first. Their files were kept in STEP/superseded/ (run/outputs/superseded-files.ts).
 */
export function readEarlierVersions(db: Database.Database, manifest: string, scope: PlanScope, planJobs: Iterable<{ key: string; step: string; outputName: string | null }>): Map<string, string[]> {
  const bySlot = new Map<string, string[]>();
  const rows = statement(db, 'SELECT key, step, output_name FROM jobs WHERE manifest = ? ORDER BY created_at, key', { raw: true }).all(manifest) as [string, string, string | null][];
  for (const [key, step, name] of rows) {
    if (scope.keys.has(key)) continue;
    const slot = slotOf(step, name);
    if (!scope.slots.has(slot)) continue;
    const list = bySlot.get(slot);
    if (list) list.push(key);
    else bySlot.set(slot, [key]);
  }
  const history = new Map<string, string[]>();
  if (bySlot.size === 0) return history;
  for (const job of planJobs) {
    const earlier = bySlot.get(slotOf(job.step, job.outputName));
    if (earlier) history.set(job.key, earlier);
  }
  return history;
}

/**
 * The newest earlier version of each job of a plan that has one, with the request it holds (the one
 * sent, once sent): what `plan` says changed in a re-created job. Read-only; none without a database.
 */
export function readEarlierRequestsAt(dbPath: string, manifest: string, planJobs: readonly { key: string; step: string; outputName: string | null }[]): Map<string, { key: string; request: Record<string, unknown> }> {
  const out = new Map<string, { key: string; request: Record<string, unknown> }>();
  const db = openStateDbCurrent(dbPath);
  if (!db) return out;
  try {
    const earlier = readEarlierVersions(db, manifest, planScope(planJobs), planJobs);
    const select = statement(db, 'SELECT request FROM jobs WHERE manifest = ? AND key = ?', { pluck: true });
    for (const [key, versions] of earlier) {
      const last = versions.at(-1);
      const request = last === undefined ? undefined : (select.get(manifest, last) as string | undefined);
      if (last !== undefined && request !== undefined) out.set(key, { key: last, request: JSON.parse(request) as Record<string, unknown> });
    }
  } finally {
    db.close();
  }
  return out;
}
