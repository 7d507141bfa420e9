import type Database from 'better-sqlite3';
import { statement } from './statements.js';

/**
 * The items a job makes, each with its own end (an HTML ad job makes one ad per chosen style, and
 * some may fail while others are made). `idx` is the item's place in the job's planned request (a
 * style's position in its style_ids): stable across the job's attempts, so a retry that resends only
 * the failed styles fills their places and leaves the made ones — and their files — where they are.
 */
export interface JobItemRow {
  jobKey: string;
  idx: number;
  /** What the item is (an HTML ad's style id). */
  item: string;
  state: 'done' | 'failed';
  failedReason: string | null;
  /** The attempt and remote job that made (or failed to make) it: its newest. */
  attemptId: number | null;
  remoteId: string | null;
  url: string | null;
  /** Credits given back for it (a failed ad is refunded); derived: from the price rule, not reported. */
  refunded: number;
  refundDerived: boolean;
}

type ItemValues = [jobKey: string, idx: number, item: string, state: 'done' | 'failed', failedReason: string | null, attemptId: number | null, remoteId: string | null, url: string | null, refunded: number, derived: number];

const COLUMNS = 'job_key, idx, item, state, failed_reason, attempt_id, remote_id, url, refunded, refund_derived';

function itemOf([jobKey, idx, item, state, failedReason, attemptId, remoteId, url, refunded, derived]: ItemValues): JobItemRow {
  return { jobKey, idx, item, state, failedReason, attemptId, remoteId, url, refunded, refundDerived: derived === 1 };
}

/** One job's items, in their places' order. */
export function readItems(db: Database.Database, manifest: string, key: string): JobItemRow[] {
  return (statement(db, `SELECT ${COLUMNS} FROM job_items WHERE manifest = ? AND job_key = ? ORDER BY idx`, { raw: true }).all(manifest, key) as ItemValues[]).map(itemOf);
}

/** Every item of the manifest, by job (only jobs that have items appear). */
export function readItemsByJob(db: Database.Database, manifest: string): Map<string, JobItemRow[]> {
  const byJob = new Map<string, JobItemRow[]>();
  for (const values of statement(db, `SELECT ${COLUMNS} FROM job_items WHERE manifest = ? ORDER BY job_key, idx`, { raw: true }).iterate(manifest) as Iterable<ItemValues>) {
    const row = itemOf(values);
    const list = byJob.get(row.jobKey);
    if (list) list.push(row);
    else byJob.set(row.jobKey, [row]);
  }
  return byJob;
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
