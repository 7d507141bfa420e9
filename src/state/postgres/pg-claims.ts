import type { JobStatus } from '../job-status.js';
import { lastReadOf, type RawJobRow } from '../sqlite/job-row.js';
import { TX_MARK_COLUMNS, markOf, type StoreTx } from './pg-commit.js';

/** The one ready order (run/ready-order.ts), as SQLite's claims.ts orders it (NULL plan orders first, keys byte-wise). */
const READY_ORDER = `status = 'planned', CASE WHEN status = 'planned' THEN -priority ELSE 0 END, plan_order NULLS FIRST, key COLLATE "C"`;

/**
 * Up to `limit` ready jobs of the manifest among `scope` that run `runId` has not claimed yet,
 * marked as claimed by it (jobs.claim_run), in the ready order — one guarded statement. Many
 * writers: the rows picked are locked as they are picked, and a row another transaction changed
 * meanwhile is checked again once it commits (a job claimed by the same run elsewhere, or no longer
 * ready, drops out): a job is handed out once per run, whichever store of the run asks. The rows
 * claimed come back whole (`rows`): the runner reads each next, and the store holds them.
 */
export async function claimReady(
  tx: StoreTx, manifest: string, runId: number, limit: number, scope: ReadonlySet<string>,
): Promise<{ claimed: { key: string; status: JobStatus }[]; rows: Map<string, RawJobRow> }> {
  const rows = await tx.query<RawJobRow & { tx_xid: string; tx_pid: number }>(
    `WITH picked AS (
       SELECT * FROM jobs
       WHERE manifest = $1 AND status IN ('planned', 'submitting', 'submitted', 'running', 'in_doubt') AND claim_run IS DISTINCT FROM $2::bigint
         AND key = ANY($3::text[])
       ORDER BY ${READY_ORDER} LIMIT $4 FOR UPDATE),
     marked AS (UPDATE jobs SET claim_run = $2 FROM picked WHERE jobs.manifest = $1 AND jobs.key = picked.key)
     SELECT ${TX_MARK_COLUMNS}, picked.*, ${lastReadOf('picked')} AS last_read FROM (SELECT 1) one LEFT JOIN picked ON true ORDER BY ${READY_ORDER}`,
    [manifest, runId, [...scope], limit],
  );
  tx.marked(markOf(rows));
  const found = rows.filter((row) => row.key !== null);
  return { claimed: found.map(({ key, status }) => ({ key, status: status as JobStatus })), rows: new Map(found.map((row) => [row.key, row])) };
}
