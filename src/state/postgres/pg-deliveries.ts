import type { AttemptRow } from '../job-row.js';
import { toAttempt } from '../sqlite/job-row.js';
import { TX_MARK_COLUMNS, markOf, type StoreTx } from './pg-commit.js';
import { appendEvents, type OpScope } from './pg-events.js';

/**
 * A webhook delivery to the attempt whose address carries `token` (of this manifest): the remote
 * id it names is kept on an attempt whose answer is not recorded — the first named wins — and
 * logged. The attempt's row is locked as it is read, so an answer recorded meanwhile is seen.
 * Answers the attempt as it was, or undefined for a token none of the manifest's attempts carries.
 */
export async function recordDelivery(tx: StoreTx, scope: OpScope & { manifest: string }, token: string, delivery: { id?: string | undefined; status?: string | undefined }): Promise<AttemptRow | undefined> {
  const [read] = await tx.query<Record<string, unknown>>(
    `SELECT ${TX_MARK_COLUMNS}, a.* FROM (SELECT 1) one LEFT JOIN LATERAL (SELECT * FROM attempts WHERE hook_token = $1 AND manifest = $2 FOR UPDATE) a ON true`,
    [token, scope.manifest],
  );
  tx.marked(markOf([read!]));
  if (read!.id === null) return undefined;
  const attempt = toAttempt(read!);
  if (!delivery.id || attempt.remoteId || attempt.deliveredId) return attempt;
  await tx.query('UPDATE attempts SET delivered_id = $2 WHERE id = $1 AND delivered_id IS NULL', [attempt.id, delivery.id]);
  await appendEvents(tx, scope, [{ key: attempt.jobKey, type: 'job:delivered', data: { attempt: attempt.id, remoteId: delivery.id, remoteStatus: delivery.status ?? null } }]);
  return attempt;
}

/**
 * A creation answer this process received but could not record (its run lost the lock, the
 * database refused the write): kept on its attempt as the remote id the service named — the first
 * named wins, as a delivery's — unfenced, and logged (`job:observed`, the append-only record of
 * what was seen). Whoever reconciles the job next adopts it from there instead of holding it in
 * doubt. Answers whether the attempt took it — only the job's newest attempt, while the job is
 * still sent-or-not (`submitting`, `in_doubt`): false when it had an answer or a name already, or
 * was settled since (proved absent, sent again), so the caller says the id out loud instead.
 */
export async function observeAnswer(tx: StoreTx, scope: OpScope & { manifest: string }, key: string, attemptId: number, remoteId: string, why: string): Promise<boolean> {
  const [found] = await tx.query<{ n: number; tx_xid: string; tx_pid: number }>(
    `WITH kept AS (UPDATE attempts SET delivered_id = $4 WHERE id = $3 AND manifest = $1 AND job_key = $2 AND remote_id IS NULL AND delivered_id IS NULL
       AND id = (SELECT max(id) FROM attempts WHERE manifest = $1 AND job_key = $2)
       AND EXISTS (SELECT 1 FROM jobs WHERE manifest = $1 AND key = $2 AND status IN ('submitting', 'in_doubt')) RETURNING id)
     SELECT ${TX_MARK_COLUMNS}, (SELECT count(*) FROM kept)::int AS n`,
    [scope.manifest, key, attemptId, remoteId],
  );
  tx.marked(markOf([found!]));
  await appendEvents(tx, scope, [{ key, type: 'job:observed', data: { attempt: attemptId, remoteId, kept: found!.n > 0, why } }]);
  return found!.n > 0;
}
