import { planMarks } from '../plan-marks.js';
import { feedOf, type NewJob, type PlanFeed } from '../job-change.js';
import { slotOf } from '../plan-scope.js';
import { TX_MARK_COLUMNS, markOf, type StoreTx } from './pg-commit.js';
import { eventsCte, type OpScope } from './pg-events.js';
import { Sql } from './pg-sql.js';

/** Jobs upserted by one statement: the plan is written a batch at a time, never held as one list. */
const BATCH = 1000;

/**
 * Records the plan's jobs (SQLite: sqlite/job-store.ts syncPlan): a new key is inserted as
 * `planned`; a known key keeps its status and history, only its estimate, request and priority
 * refreshed while planned (its record as planned whenever that changed). An edited row's earlier
 * job (same step and output name, another key) is superseded: its spend stays in every total,
 * shown apart; a job back in the plan counts as its own again. The plan's jobs that can be
 * claimed are marked in it (in_plan, which claims read), the manifest's others out of it; a mark
 * already right is not written again. All in the caller's transaction, the plan read once, a
 * batch of jobs at a time.
 */
export async function syncPlan(tx: StoreTx, scope: OpScope & { manifest: string }, given: readonly NewJob[] | PlanFeed): Promise<{ added: number; known: number }> {
  const { manifest } = scope;
  const jobs = feedOf(given);
  // One scan of the manifest's jobs: one already past `planned` is left as it is, unwritten (a
  // finished 10,000-job manifest re-runs without rewriting 10,000 rows).
  const scanned = await tx.query<{ key: string | null; status: string; step: string; output_name: string | null; in_plan: number; plan_digest: string | null; tx_xid: string; tx_pid: number }>(
    `SELECT ${TX_MARK_COLUMNS}, j.key, j.status, j.step, j.output_name, j.in_plan, j.plan_digest FROM (SELECT 1) one LEFT JOIN jobs j ON j.manifest = $1`,
    [manifest],
  );
  tx.marked(markOf(scanned));
  const recorded = new Map<string, { status: string; step: string; output_name: string | null; in_plan: number; plan_digest: string | null }>();
  for (const row of scanned) if (row.key !== null) recorded.set(row.key, row);
  // The places of recorded jobs outside the plan: only a plan job in one of them supersedes it.
  const outside = new Map<string, string[]>();
  for (const [key, row] of recorded) {
    if (jobs.keys.has(key) || !jobs.steps.has(row.step)) continue;
    const slot = slotOf(row.step, row.output_name);
    outside.set(slot, [...(outside.get(slot) ?? []), key]);
  }
  const superseded = new Set<string>();
  let [known, order] = [0, 0];
  let batch: { job: NewJob; order: number }[] = [];
  const flush = async () => {
    if (batch.length > 0) await writeJobs(tx, scope, batch);
    batch = [];
  };
  for (const job of jobs) {
    const row = recorded.get(job.key);
    if (row) known++;
    for (const key of outside.get(slotOf(job.step, job.outputName ?? null)) ?? []) superseded.add(key);
    const written = !row || row.status === 'planned' || (job.planned !== undefined && row.plan_digest !== job.planned.digest);
    if (written) batch.push({ job, order });
    order++;
    if (batch.length >= BATCH) await flush();
  }
  await flush();
  const sql = new Sql();
  // Each made on first use: a parameter no part of the statement uses has no type, and PostgreSQL refuses it.
  const m = () => sql.shared('manifest', manifest, 'text');
  const now = () => sql.shared('now', scope.now, 'bigint');
  const { entering, leaving } = planMarks([...recorded].map(([key, r]) => ({ key, status: r.status, marked: r.in_plan === 1 })), jobs.keys);
  if (entering.length > 0) sql.with('entering', `UPDATE jobs SET in_plan = 1 WHERE manifest = ${m()} AND key = ANY(${sql.$(entering, 'text[]')})`);
  if (leaving.length > 0) sql.with('leaving', `UPDATE jobs SET in_plan = 0 WHERE manifest = ${m()} AND key = ANY(${sql.$(leaving, 'text[]')})`);
  if (superseded.size > 0) {
    sql.with('superseded', `UPDATE charges SET lapsed = 'superseded', lapsed_at = ${now()} WHERE manifest = ${m()} AND job_key = ANY(${sql.$([...superseded], 'text[]')}) AND lapsed IS NULL`);
  }
  // Only the few jobs with superseded charges are looked at again: a re-run writes nothing.
  const lapsed = await tx.query<{ job_key: string }>(`SELECT DISTINCT job_key FROM charges WHERE manifest = $1 AND lapsed = 'superseded'`, [manifest]);
  const back = lapsed.map((r) => r.job_key).filter((key) => jobs.keys.has(key));
  if (back.length > 0) sql.with('restored', `UPDATE charges SET lapsed = NULL, lapsed_at = NULL WHERE manifest = ${m()} AND lapsed = 'superseded' AND job_key = ANY(${sql.$(back, 'text[]')})`);
  eventsCte(sql, scope, [{ key: null, type: 'plan:synced', data: { manifest, jobs: jobs.length, added: jobs.length - known } }]);
  await tx.query(sql.text('SELECT 1'), sql.params);
  return { added: jobs.length - known, known };
}

/**
 * Upserts a batch of the plan's jobs, in key order (the order every writer locks in): a new or
 * planned job whole, a sent one's record as planned alone. The last of a key given twice wins.
 */
async function writeJobs(tx: StoreTx, scope: OpScope & { manifest: string }, batch: readonly { job: NewJob; order: number }[]): Promise<void> {
  const written = [...new Map(batch.map((entry) => [entry.job.key, entry])).values()].sort((a, b) => (a.job.key < b.job.key ? -1 : a.job.key > b.job.key ? 1 : 0));
  const sql = new Sql();
  const m = sql.$(scope.manifest, 'text');
  const now = sql.shared('now', scope.now, 'bigint');
  const rows = written.map(({ job, order }) => ({
    ord: order, key: job.key, step: job.step, kind: job.kind, output_name: job.outputName ?? null, request: JSON.stringify(job.request), path_id: job.pathId ?? null,
    credits: job.creditsEstimated, priority: job.priority ?? 0, planned_items: job.plannedItems ? JSON.stringify(job.plannedItems) : null,
    plan_job: job.planned?.record ?? null, plan_digest: job.planned?.digest ?? null,
  }));
  await tx.query(
    `INSERT INTO jobs (key, manifest, step, kind, output_name, request, path_id, status, credits_estimated, priority, created_at, updated_at, planned_items, plan_order, in_plan, plan_job, plan_digest)
      SELECT v.key, ${m}, v.step, v.kind, v.output_name, v.request, v.path_id, 'planned', v.credits, v.priority, ${now}, ${now}, v.planned_items, v.ord, 1, v.plan_job, v.plan_digest
      FROM ${sql.rows(rows, 'ord bigint, key text, step text, kind text, output_name text, request text, path_id text, credits float8, priority bigint, planned_items text, plan_job text, plan_digest text')}
      ON CONFLICT (manifest, key) DO UPDATE SET plan_job = excluded.plan_job, plan_digest = excluded.plan_digest,
        credits_estimated = CASE WHEN jobs.status = 'planned' THEN excluded.credits_estimated ELSE jobs.credits_estimated END,
        request = CASE WHEN jobs.status = 'planned' THEN excluded.request ELSE jobs.request END,
        priority = CASE WHEN jobs.status = 'planned' THEN excluded.priority ELSE jobs.priority END,
        plan_order = CASE WHEN jobs.status = 'planned' THEN excluded.plan_order ELSE jobs.plan_order END,
        in_plan = CASE WHEN jobs.status = 'planned' THEN 1 ELSE jobs.in_plan END,
        planned_items = CASE WHEN jobs.status = 'planned' THEN excluded.planned_items ELSE jobs.planned_items END`,
    sql.params,
  );
}
