import { supersededJobs } from '../charge-rules.js';
import { planMarks } from '../plan-marks.js';
import type { NewJob } from '../job-change.js';
import { TX_MARK_COLUMNS, markOf, type StoreTx } from './pg-commit.js';
import { eventsCte, type OpScope } from './pg-events.js';
import { Sql } from './pg-sql.js';

/**
 * Records the plan's jobs (SQLite: sqlite/job-store.ts syncPlan): a new key is inserted as
 * `planned`; a known key keeps its status and history, only its estimate, request and priority
 * refreshed while planned. An edited row's earlier job (same step and output name, another key) is
 * superseded: its spend stays in every total, shown apart; a job back in the plan counts as its own again.
 * The plan's jobs that can be claimed are marked in it (in_plan, which claims read), the manifest's
 * others out of it; a mark already right is not written again.
 */
export async function syncPlan(tx: StoreTx, scope: OpScope & { manifest: string }, jobs: readonly NewJob[]): Promise<{ added: number; known: number }> {
  const { manifest } = scope;
  // One scan of the manifest's jobs: one already past `planned` is left as it is, unwritten (a
  // finished 10,000-job manifest re-runs without rewriting 10,000 rows).
  const scanned = await tx.query<{ key: string | null; status: string; step: string; output_name: string | null; in_plan: number; tx_xid: string; tx_pid: number }>(
    `SELECT ${TX_MARK_COLUMNS}, j.key, j.status, j.step, j.output_name, j.in_plan FROM (SELECT 1) one LEFT JOIN jobs j ON j.manifest = $1`,
    [manifest],
  );
  tx.marked(markOf(scanned));
  const recorded = scanned.filter((row) => row.key !== null) as { key: string; status: string; step: string; output_name: string | null; in_plan: number }[];
  const statuses = new Map(recorded.map((row) => [row.key, row.status]));
  const known = jobs.filter((job) => statuses.has(job.key)).length;
  // The last of a key given twice wins, as SQLite's upserts one after another leave it; written in key order (the order every writer locks in).
  const written = [...new Map(jobs.map((job, order) => [job.key, { job, order }])).values()]
    .filter(({ job }) => (statuses.get(job.key) ?? 'planned') === 'planned')
    .sort((a, b) => (a.job.key < b.job.key ? -1 : a.job.key > b.job.key ? 1 : 0));
  const sql = new Sql();
  // The time made on first use (shared with the event's): a re-run with every job past planned writes no job and supersedes none.
  const m = sql.$(manifest, 'text');
  const now = () => sql.shared('now', scope.now, 'bigint');
  if (written.length > 0) {
    const rows = written.map(({ job, order }) => ({
      ord: order, key: job.key, step: job.step, kind: job.kind, output_name: job.outputName ?? null, request: JSON.stringify(job.request), path_id: job.pathId ?? null,
      credits: job.creditsEstimated, priority: job.priority ?? 0, planned_items: job.plannedItems ? JSON.stringify(job.plannedItems) : null,
    }));
    sql.with('upserted', `INSERT INTO jobs (key, manifest, step, kind, output_name, request, path_id, status, credits_estimated, priority, created_at, updated_at, planned_items, plan_order, in_plan)
      SELECT v.key, ${m}, v.step, v.kind, v.output_name, v.request, v.path_id, 'planned', v.credits, v.priority, ${now()}, ${now()}, v.planned_items, v.ord, 1
      FROM ${sql.rows(rows, 'ord bigint, key text, step text, kind text, output_name text, request text, path_id text, credits float8, priority bigint, planned_items text')}
      ON CONFLICT (manifest, key) DO UPDATE SET credits_estimated = excluded.credits_estimated,
        request = CASE WHEN jobs.status = 'planned' THEN excluded.request ELSE jobs.request END, priority = excluded.priority, plan_order = excluded.plan_order, in_plan = 1,
        planned_items = CASE WHEN jobs.status = 'planned' THEN excluded.planned_items ELSE jobs.planned_items END
      WHERE jobs.status = 'planned'`);
  }
  const keys = new Set(jobs.map((j) => j.key));
  const { entering, leaving } = planMarks(recorded.map((r) => ({ key: r.key, status: r.status, marked: r.in_plan === 1 })), keys);
  if (entering.length > 0) sql.with('entering', `UPDATE jobs SET in_plan = 1 WHERE manifest = ${m} AND key = ANY(${sql.$(entering, 'text[]')})`);
  if (leaving.length > 0) sql.with('leaving', `UPDATE jobs SET in_plan = 0 WHERE manifest = ${m} AND key = ANY(${sql.$(leaving, 'text[]')})`);
  const places = [...recorded.map((r) => [r.key, r.step, r.output_name] as [string, string, string | null]), ...jobs.map((j) => [j.key, j.step, j.outputName ?? null] as [string, string, string | null])];
  const superseded = supersededJobs(places, keys, new Set(jobs.map((j) => j.step)));
  if (superseded.length > 0) {
    sql.with('superseded', `UPDATE charges SET lapsed = 'superseded', lapsed_at = ${now()} WHERE manifest = ${m} AND job_key = ANY(${sql.$(superseded, 'text[]')}) AND lapsed IS NULL`);
  }
  sql.with('restored', `UPDATE charges SET lapsed = NULL, lapsed_at = NULL WHERE manifest = ${m} AND lapsed = 'superseded' AND job_key = ANY(${sql.$([...keys], 'text[]')})`);
  eventsCte(sql, scope, [{ key: null, type: 'plan:synced', data: { manifest, jobs: jobs.length, added: jobs.length - known } }]);
  await tx.query(sql.text('SELECT 1'), sql.params);
  return { added: jobs.length - known, known };
}
