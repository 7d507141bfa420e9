import { FORGET_REFUSED, type ForgetResult } from '../sqlite/forget-job.js';
import { JOB_ROWS, toJobRow, type RawJobRow } from '../sqlite/job-row.js';
import { TX_MARK_COLUMNS, markOf, type StoreTx } from './pg-commit.js';
import { appendEvents, type OpScope } from './pg-events.js';

/**
 * `reelpipe forget` on PostgreSQL (sqlite/forget-job.ts says what and why): the job's row locked,
 * refused while it may exist at the service, else its outputs, attempts, hook runs, items, last
 * read and row dropped in one statement, its charges kept and marked forgotten, `job:forgotten`
 * logged with what it held.
 */
export async function forgetJob(tx: StoreTx, scope: OpScope & { manifest: string }, key: string, by: Record<string, unknown>): Promise<ForgetResult | undefined> {
  const [read] = await tx.query<RawJobRow & { tx_xid: string; tx_pid: number }>(
    `SELECT ${TX_MARK_COLUMNS}, j.* FROM (SELECT 1) one LEFT JOIN LATERAL (${JOB_ROWS} WHERE manifest = $1 AND key = $2 FOR UPDATE OF jobs) j ON true`,
    [scope.manifest, key],
  );
  tx.marked(markOf([read!]));
  if (read!.key === null) return undefined;
  const job = toJobRow(read!);
  if (FORGET_REFUSED.includes(job.status)) return { refused: job };
  const [counts] = await tx.query<{ attempts: number; outputs: number }>(
    `WITH outputs AS (DELETE FROM outputs WHERE manifest = $1 AND job_key = $2 RETURNING 1),
       attempts AS (DELETE FROM attempts WHERE manifest = $1 AND job_key = $2 RETURNING 1),
       hooks AS (DELETE FROM hook_runs WHERE manifest = $1 AND job_key = $2),
       items AS (DELETE FROM job_items WHERE manifest = $1 AND job_key = $2),
       results AS (DELETE FROM job_results WHERE manifest = $1 AND job_key = $2),
       job AS (DELETE FROM jobs WHERE manifest = $1 AND key = $2),
       -- Its charges stay, never deleted (counted apart as forgotten spend); they let go of its attempts' ids.
       lapsed AS (UPDATE charges SET lapsed = 'forgotten', lapsed_at = $3, attempt_id = NULL
         WHERE manifest = $1 AND job_key = $2 AND lapsed IS DISTINCT FROM 'forgotten' AND state <> 'open')
     SELECT (SELECT count(*) FROM attempts) AS attempts, (SELECT count(*) FROM outputs) AS outputs`,
    [scope.manifest, key, scope.now],
  );
  const { attempts, outputs } = counts!;
  await appendEvents(tx, scope, [{
    key,
    type: 'job:forgotten',
    data: { step: job.step, kind: job.kind, status: job.status, remoteId: job.remoteId, creditsUsed: job.creditsUsed, creditsPrior: job.creditsPrior, attempts, outputs, by },
  }]);
  return { forgotten: job, attempts, outputs };
}
