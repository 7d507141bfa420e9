import { hookRunOf, type HookName, type HookResult, type HookRunRow, type HookTarget, type RawHookRun } from '../hook-run-rows.js';
import { TX_MARK_COLUMNS, markOf, type StoreTx } from './pg-commit.js';
import type { PgDb } from './pg-connection.js';
import type { OpScope } from './pg-events.js';

/**
 * Hook runs on PostgreSQL (hook-run-rows.ts tells a row's life): written before the command
 * starts and after it ends, each in a transaction of its own that the store's door makes durable.
 */

/** The newest on_output row of each output of the jobs of `keys`. */
const LATEST_OF_JOBS = `SELECT max(id) FROM hook_runs WHERE manifest = $1 AND hook = 'on_output' AND job_key = ANY($2::text[]) GROUP BY job_key, output_idx`;

/**
 * A hook about to start; a row of the same hook and output still `running` belongs to a run that
 * died: it becomes `interrupted` in the same transaction, so the record says it was cut off. Many
 * writers: the hook's output is locked first (an advisory lock of the transaction), so a second
 * start of the same hook waits, then sees the first one's row and interrupts it.
 */
export async function hookBegin(tx: StoreTx, scope: OpScope & { manifest: string }, hook: HookName, target: HookTarget | null, argv: readonly string[]): Promise<number> {
  const place = JSON.stringify([scope.manifest, hook, target?.jobKey ?? null, target?.outputIdx ?? null]);
  tx.marked(markOf(await tx.query(`SELECT ${TX_MARK_COLUMNS}, pg_advisory_xact_lock(hashtextextended($1, 0))`, [place])));
  const rows = await tx.query<{ id: number }>(
    `WITH interrupted AS (UPDATE hook_runs SET state = 'interrupted', finished_at = $6, error = 'the run that started it ended before it did'
       WHERE manifest = $1 AND hook = $3 AND job_key IS NOT DISTINCT FROM $4::text AND output_idx IS NOT DISTINCT FROM $5::bigint AND state = 'running'),
     begun AS (INSERT INTO hook_runs (manifest, run_id, hook, job_key, output_idx, output_sha256, state, argv, started_at)
       VALUES ($1, $2, $3, $4, $5, $7, 'running', $8, $6) RETURNING id)
     SELECT id FROM begun`,
    [scope.manifest, scope.runId, hook, target?.jobKey ?? null, target?.outputIdx ?? null, scope.now, target?.sha256 ?? null, JSON.stringify(argv)],
  );
  return rows[0]!.id;
}

/** How the command ended. */
export async function hookFinish(tx: StoreTx, now: number, id: number, result: HookResult): Promise<HookRunRow> {
  const [row] = await tx.query<RawHookRun>(
    `UPDATE hook_runs SET state = $2, finished_at = $3, exit_code = $4, signal = $5, timed_out = $6, duration_ms = $7, stdout_tail = $8, stderr_tail = $9, error = $10
     WHERE id = $1 RETURNING *`,
    [id, result.ok ? 'ok' : 'failed', now, result.exitCode, result.signal, result.timedOut ? 1 : 0, result.durationMs, result.stdoutTail, result.stderrTail, result.error],
  );
  if (!row) throw new Error(`no hook run ${id}`);
  return hookRunOf(row);
}

/** The newest on_output row of each output of a job, by output index. */
export async function hookLatest(db: PgDb, manifest: string, jobKey: string): Promise<Map<number, HookRunRow>> {
  const rows = await db.query<RawHookRun>(`SELECT * FROM hook_runs WHERE id IN (${LATEST_OF_JOBS}) ORDER BY output_idx`, [manifest, [jobKey]]);
  return new Map(rows.map((r) => [r.output_idx ?? 0, hookRunOf(r)]));
}

/** `reelpipe retry --hooks`: the failed newest on_output hooks of the jobs of `keys` become `retried`; answers how many. */
export async function retryFailedHooks(tx: StoreTx, manifest: string, keys: readonly string[]): Promise<number> {
  if (keys.length === 0) return 0;
  const rows = await tx.query(`UPDATE hook_runs SET state = 'retried' WHERE id IN (${LATEST_OF_JOBS}) AND state = 'failed' RETURNING id`, [manifest, keys]);
  return rows.length;
}
