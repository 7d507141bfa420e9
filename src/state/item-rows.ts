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

/** The columns of the job_items table, in the order ItemValues holds them: the same text in every store's SELECT. */
export const ITEM_COLUMNS = 'job_key, idx, item, state, failed_reason, attempt_id, remote_id, url, refunded, refund_derived';

export type ItemValues = [jobKey: string, idx: number, item: string, state: 'done' | 'failed', failedReason: string | null, attemptId: number | null, remoteId: string | null, url: string | null, refunded: number, derived: number];

export function itemOf([jobKey, idx, item, state, failedReason, attemptId, remoteId, url, refunded, derived]: ItemValues): JobItemRow {
  return { jobKey, idx, item, state, failedReason, attemptId, remoteId, url, refunded, refundDerived: derived === 1 };
}
