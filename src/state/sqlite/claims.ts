import type { JobStatus } from '../job-status.js';
import type { StateStore } from './job-store.js';
import { statement } from './statements.js';

/** The statuses a claim hands out (with `downloads`, `done` too): a job to send, reconcile or track. */
export const CLAIMED_STATUSES = `'planned', 'submitting', 'submitted', 'running', 'in_doubt'`;

/** The ready jobs of a manifest not claimed by a run, in ready order (see claimReady). */
const claimable = (statuses: string) => `SELECT key, status FROM jobs
  WHERE manifest = ? AND status IN (${statuses}) AND claim_run IS NOT ?
  ORDER BY status = 'planned', CASE WHEN status = 'planned' THEN -priority ELSE 0 END, plan_order, key`;
const CLAIMABLE = claimable(CLAIMED_STATUSES);
const CLAIMABLE_WITH_DOWNLOADS = claimable(`${CLAIMED_STATUSES}, 'done'`);

/**
 * Up to `limit` ready jobs of the manifest among `scope` that run `runId` has not claimed yet,
 * marked as claimed by it (jobs.claim_run, migration 18), in the one ready order
 * (run/ready-order.ts): jobs already sent first (they hold the service's capacity; among them,
 * plan order), then the planned ones by priority descending, then plan order. Inside the
 * caller's transaction, so a job is handed out once per run.
 */
export function claimReady(engine: StateStore, runId: number, limit: number, scope: ReadonlySet<string>, downloads = false): { key: string; status: JobStatus }[] {
  const claimed: { key: string; status: JobStatus }[] = [];
  for (const [key, status] of statement(engine.db, downloads ? CLAIMABLE_WITH_DOWNLOADS : CLAIMABLE, { raw: true }).iterate(engine.manifest, runId) as Iterable<[string, JobStatus]>) {
    if (claimed.length >= limit) break;
    if (scope.has(key)) claimed.push({ key, status });
  }
  const mark = statement(engine.db, 'UPDATE jobs SET claim_run = ? WHERE manifest = ? AND key = ?');
  for (const { key } of claimed) mark.run(runId, engine.manifest, key);
  return claimed;
}
