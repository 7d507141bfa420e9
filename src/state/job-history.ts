import type Database from 'better-sqlite3';
import { slotOf } from './charges.js';
import type { PlanScope } from './money.js';
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
