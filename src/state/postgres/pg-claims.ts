import type { JobStatus } from '../job-status.js';
import { lastReadOf, type RawJobRow } from '../sqlite/job-row.js';
import type { Clock } from '../../util/clock.js';
import { TX_MARK_COLUMNS, markOf, type StoreTx } from './pg-commit.js';
import { appendEvents, type OpScope } from './pg-events.js';
import { CLAIMED_STATUSES, READY_INDEX_STATUSES } from '../sqlite/claims.js';
import { brokenEvents, deleteLapsed, RUN_LOCKS } from './pg-members.js';

/** The one ready order (run/ready-order.ts), as SQLite's claims.ts orders it (NULL plan orders first, keys byte-wise). */
const READY_ORDER = `status = 'planned', CASE WHEN status = 'planned' THEN -priority ELSE 0 END, plan_order NULLS FIRST, key COLLATE "C"`;

/**
 * Up to `limit` ready jobs of the plan last recorded for the manifest (syncPlan's in_plan) that
 * run `runId` has not claimed yet,
 * marked as claimed by it (jobs.claim_run), in the ready order — one guarded transaction. Many
 * writers: a job another transaction is claiming is skipped (SKIP LOCKED), and a job claimed by
 * another member of the run whose lock stands is not handed out (pg-members.ts): claims of two
 * members are disjoint. A member whose lease lapsed loses its lock in the same transaction, and its
 * jobs are claimed like any other (taken over): its writes are fenced from then on. The rows
 * claimed come back whole (`rows`): the runner reads each next, and the store holds them.
 * Read from jobs_ready (migration 24) in its own order, so a claim stops at its window; the
 * plan's keys are never sent (they were, as one array of up to 100,000, on every claim).
 */
export async function claimReady(
  tx: StoreTx, scope: OpScope & { manifest: string }, clock: Clock, runId: number, limit: number, downloads = false,
): Promise<{ claimed: { key: string; status: JobStatus }[]; rows: Map<string, RawJobRow> }> {
  // The lapsed members' locks go first, in a statement of their own: the claim below reads the
  // locks left. One statement with the DELETE as a CTE read inside the FOR UPDATE pick failed
  // whenever a picked row had changed since the snapshot: PostgreSQL re-checks that row
  // (EvalPlanQual) and cannot re-run a data-modifying CTE there ("ModifyTable should not be
  // called during EvalPlanQual"). Same transaction, so the claim and the takeover stay one.
  const gone = await deleteLapsed(tx, scope.manifest, clock, runId);
  const rows = await tx.query<RawJobRow & { tx_xid: string; tx_pid: number }>(
    `WITH picked AS (
       SELECT * FROM jobs
       WHERE manifest = $1 AND in_plan = 1 AND status IN (${downloads ? READY_INDEX_STATUSES : CLAIMED_STATUSES}) AND claim_run IS DISTINCT FROM $2::bigint
         AND (claim_run IS NULL OR claim_run NOT IN (SELECT run_id FROM locks WHERE ${RUN_LOCKS('$1')} AND run_id IS NOT NULL))
       ORDER BY ${READY_ORDER} LIMIT $3 FOR UPDATE SKIP LOCKED),
     marked AS (UPDATE jobs SET claim_run = $2 FROM picked WHERE jobs.manifest = $1 AND jobs.key = picked.key)
     SELECT ${TX_MARK_COLUMNS}, picked.*, ${lastReadOf('picked')} AS last_read
     FROM (SELECT 1) one LEFT JOIN picked ON true ORDER BY ${READY_ORDER}`,
    [scope.manifest, runId, limit],
  );
  tx.marked(markOf(rows));
  if (gone.length > 0) await appendEvents(tx, scope, brokenEvents(gone));
  const found = rows.filter((row) => row.key !== null);
  return { claimed: found.map(({ key, status }) => ({ key, status: status as JobStatus })), rows: new Map(found.map((row) => [row.key, row])) };
}
