import { TX_MARK_COLUMNS, markOf, type StoreTx } from './pg-commit.js';
import { eventText, eventsCte, type OpScope } from './pg-events.js';
import { Sql } from './pg-sql.js';

/** A run's row as it starts, logged as `run:started`; answers its id (the database's). `from`: the manifest file it was started from. */
export async function startRun(tx: StoreTx, scope: OpScope & { manifest: string }, host: string, pid: number, maxCredits: number | null, from: string | null): Promise<number> {
  const data = eventText({ manifest: scope.manifest, host, pid, maxCredits, ...(from === null ? {} : { from }) });
  const rows = await tx.query<{ run_id: number; tx_xid: string; tx_pid: number }>(
    `WITH run AS (INSERT INTO runs (manifest, host, pid, started_at, max_credits, manifest_path) VALUES ($1, $2, $3, $4, $5, $7) RETURNING id)
     INSERT INTO events (at, run_id, manifest, job_key, type, data) SELECT $4, run.id, $1, NULL, 'run:started', $6 FROM run
     RETURNING run_id, ${TX_MARK_COLUMNS}`,
    [scope.manifest, host, pid, scope.now, maxCredits, data, from],
  );
  tx.marked(markOf(rows));
  return rows[0]!.run_id;
}

/** How run `scope.runId` ended (`refusal`: why its start was refused), logged as `run:finished`. */
export async function finishRun(tx: StoreTx, scope: OpScope & { runId: number }, outcome: string, summary: Record<string, unknown>, refusal: string | null): Promise<void> {
  const sql = new Sql();
  sql.with('finished', `UPDATE runs SET finished_at = ${sql.$(scope.now, 'bigint')}, outcome = ${sql.$(outcome, 'text')}, refusal = ${sql.$(refusal, 'text')}
    WHERE id = ${sql.$(scope.runId, 'bigint')}`);
  eventsCte(sql, scope, [{ key: null, type: 'run:finished', data: { outcome, ...summary } }]);
  await tx.query(sql.text('SELECT 1'), sql.params);
}
