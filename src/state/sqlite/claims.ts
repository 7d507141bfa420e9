import type { JobStatus } from '../job-status.js';
import type { StateStore } from './job-store.js';
import { statement } from './statements.js';

/** The ready jobs of a manifest not claimed by a run, in ready order (see claimReady). */
const CLAIMABLE = `SELECT key, status FROM jobs
  WHERE manifest = ? AND status IN ('planned', 'submitting', 'submitted', 'running', 'in_doubt') AND claim_run IS NOT ?
  ORDER BY status = 'planned', CASE WHEN status = 'planned' THEN -priority ELSE 0 END, plan_order, key`;

/**
 * Up to `limit` ready jobs of the manifest among `scope` that run `runId` has not claimed yet,
 * marked as claimed by it (jobs.claim_run, migration 18), in the one ready order
 * (run/ready-order.ts): jobs already sent first (they hold the service's capacity; among them,
 * plan order), then the planned ones by priority descending, then plan order. Inside the
 * caller's transaction, so a job is handed out once per run.
 */
export function claimReady(engine: StateStore, runId: number, limit: number, scope: ReadonlySet<string>): { key: string; status: JobStatus }[] {
  const claimed: { key: string; status: JobStatus }[] = [];
  for (const [key, status] of statement(engine.db, CLAIMABLE, { raw: true }).iterate(engine.manifest, runId) as Iterable<[string, JobStatus]>) {
    if (claimed.length >= limit) break;
    if (scope.has(key)) claimed.push({ key, status });
  }
  const mark = statement(engine.db, 'UPDATE jobs SET claim_run = ? WHERE manifest = ? AND key = ?');
  for (const { key } of claimed) mark.run(runId, engine.manifest, key);
  return claimed;
}
