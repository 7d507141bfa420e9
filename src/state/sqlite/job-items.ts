import type Database from 'better-sqlite3';
import { byJob } from '../by-job.js';
import { ITEM_COLUMNS, itemOf, type ItemValues, type JobItemRow } from '../item-rows.js';
import { statement } from './statements.js';

export type { JobItemRow } from '../item-rows.js';

/** One job's items, in their places' order. */
export function readItems(db: Database.Database, manifest: string, key: string): JobItemRow[] {
  return (statement(db, `SELECT ${ITEM_COLUMNS} FROM job_items WHERE manifest = ? AND job_key = ? ORDER BY idx`, { raw: true }).all(manifest, key) as ItemValues[]).map(itemOf);
}

/** Every item of the manifest, by job (only jobs that have items appear). */
export function readItemsByJob(db: Database.Database, manifest: string): Map<string, JobItemRow[]> {
  const rows = statement(db, `SELECT ${ITEM_COLUMNS} FROM job_items WHERE manifest = ? ORDER BY job_key, idx`, { raw: true }).iterate(manifest) as Iterable<ItemValues>;
  return byJob(rows, (values) => [values[0], itemOf(values)]);
}

/** Records what one attempt's remote job made of the items it was asked for (each replaces its place's record). */
export function writeItems(db: Database.Database, manifest: string, key: string, items: readonly Omit<JobItemRow, 'jobKey'>[], now: number): void {
  const upsert = statement(db, `INSERT INTO job_items (manifest, job_key, idx, item, state, failed_reason, attempt_id, remote_id, url, refunded, refund_derived, updated_at)
    VALUES (@manifest, @key, @idx, @item, @state, @failedReason, @attemptId, @remoteId, @url, @refunded, @derived, @now)
    ON CONFLICT (manifest, job_key, idx) DO UPDATE SET item = excluded.item, state = excluded.state, failed_reason = excluded.failed_reason,
      attempt_id = excluded.attempt_id, remote_id = excluded.remote_id, url = excluded.url, refunded = excluded.refunded,
      refund_derived = excluded.refund_derived, updated_at = excluded.updated_at`);
  for (const i of items) {
    upsert.run({
      manifest, key, idx: i.idx, item: i.item, state: i.state, failedReason: i.failedReason, attemptId: i.attemptId, remoteId: i.remoteId,
      url: i.url, refunded: i.refunded, derived: i.refundDerived ? 1 : 0, now,
    });
  }
}
