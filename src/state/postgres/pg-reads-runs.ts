import { RUN_LIST_COLUMNS, RUN_RECORD_COLUMNS, runListOf, type ListedRun, type RecordedRun, type RunListRow, type RunRecord } from '../run-rows.js';
import type { RunWork } from '../sqlite/run-work.js';
import type { Tx } from './pg-connection.js';
import { readPgRunCredits } from './pg-money.js';

/** The reads of `runs`, the report's header and `logs` on PostgreSQL (sqlite/run-reads.ts and run-work.ts are SQLite's). */

/** The newest `limit` runs of `manifest`, newest first; refused starts only with `all` (counted apart). */
export async function readPgRunList(tx: Tx, manifest: string, limit: number, all: boolean): Promise<{ rows: RunListRow[]; runs: number; refused: number }> {
  const [counts] = await tx.query<{ runs: number; refused: number }>('SELECT count(*) AS runs, count(refusal) AS refused FROM runs WHERE manifest = $1', [manifest]);
  const runs = await tx.query<ListedRun>(`SELECT ${RUN_LIST_COLUMNS} FROM runs WHERE manifest = $1 AND ($2 OR refusal IS NULL) ORDER BY id DESC LIMIT $3`, [manifest, all, limit]);
  const ends = await tx.query<{ run_id: number; data: string | null }>(`SELECT run_id, data FROM events
    WHERE manifest = $1 AND job_key IS NULL AND type = 'run:finished' AND run_id >= $2 ORDER BY id`, [manifest, runs.at(-1)?.id ?? 0]);
  const locks = await tx.query<{ run_id: number | null; host: string; pid: number }>('SELECT run_id, host, pid FROM locks WHERE name = $1', [manifest]);
  return { runs: counts?.runs ?? 0, refused: counts?.refused ?? 0, rows: runListOf(runs, ends, locks, await readPgRunCredits(tx, manifest, runs.map((run) => run.id))) };
}

/** One run of `manifest` (default: its newest that started) with the jobs its events name (and, with `credits`, its charges summed); its newest ids when there is no such run. */
export async function readPgRunRecord(tx: Tx, manifest: string, runId?: number, credits = true): Promise<RunRecord | null> {
  const select = `SELECT ${RUN_RECORD_COLUMNS} FROM runs WHERE manifest = $1`;
  const [run] = runId === undefined
    ? await tx.query<RecordedRun>(`${select} AND refusal IS NULL ORDER BY id DESC LIMIT 1`, [manifest])
    : await tx.query<RecordedRun>(`${select} AND id = $2`, [manifest, runId]);
  if (!run) {
    if (runId === undefined) return null;
    return { missing: true, ids: (await tx.query<{ id: number }>('SELECT id FROM runs WHERE manifest = $1 ORDER BY id DESC LIMIT 10', [manifest])).map((r) => r.id) };
  }
  const keys = await tx.query<{ job_key: string }>(`SELECT job_key FROM events WHERE run_id = $1 AND manifest = $2 AND job_key IS NOT NULL
    GROUP BY job_key ORDER BY job_key COLLATE "C"`, [run.id, manifest]);
  return { run, jobKeys: new Set(keys.map((k) => k.job_key)), charged: credits ? (await readPgRunCredits(tx, manifest, [run.id])).get(run.id) : undefined };
}

/**
 * A run that started (a refused start moved nothing), with how many jobs it changed: the jobs its
 * events name. Why DISTINCT in a subquery, not count(DISTINCT): the planner may hash the keys
 * for a DISTINCT, while count(DISTINCT) always sorts them (the index holds a run's events in id
 * order, migration 23, so neither comes sorted).
 */
const RUN_WORK = `SELECT id, started_at AS "startedAt", finished_at AS "finishedAt", outcome,
  (SELECT count(*) FROM (SELECT DISTINCT job_key FROM events e WHERE e.run_id = r.id AND e.manifest = r.manifest AND e.job_key IS NOT NULL) named) AS jobs
  FROM runs r WHERE manifest = $1 AND refusal IS NULL`;

/**
 * The manifest's newest run that started and its newest run that changed a job — the same run
 * when the newest did work (sqlite/run-work.ts says what the report's header makes of them).
 */
export async function readPgLastWork(tx: Tx, manifest: string): Promise<{ newest: RunWork | null; worked: RunWork | null }> {
  const [newest] = await tx.query<RunWork>(`${RUN_WORK} ORDER BY id DESC LIMIT 1`, [manifest]);
  if (!newest) return { newest: null, worked: null };
  if (newest.jobs > 0) return { newest, worked: newest };
  // The newest run before it that named a job: found from the end of the events' run index.
  const [worked] = await tx.query<RunWork>(`${RUN_WORK}
    AND id = (SELECT max(run_id) FROM events WHERE manifest = $1 AND job_key IS NOT NULL AND run_id < $2)`, [manifest, newest.id]);
  return { newest, worked: worked ?? null };
}
