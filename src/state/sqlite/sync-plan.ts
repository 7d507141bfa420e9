import type { PlanFeed } from '../job-change.js';
import { markPlan } from './claims.js';
import type { StateStore } from './job-store.js';
import { statement } from './statements.js';

/**
 * Records the plan's jobs (Store.syncPlan): a new key is inserted as `planned`; a known key keeps
 * its status and history (a finished job stays finished), only its estimate, request and priority
 * refreshed while planned — and its record as planned (jobs.plan_job) whenever that changed. The
 * plan's jobs are marked in it (in_plan, which claims read) and the manifest's others out of it
 * (claims.ts markPlan); a mark already right is not written again.
 */
export function syncPlan(engine: StateStore, manifest: string, jobs: PlanFeed): { added: number; known: number } {
  const now = engine.clock.now();
  const insert = statement(engine.db, 
    `INSERT INTO jobs (key, manifest, step, kind, output_name, request, path_id, status, credits_estimated,
       priority, created_at, updated_at, planned_items, plan_order, in_plan, plan_job, plan_digest)
     VALUES (@key, @manifest, @step, @kind, @outputName, @request, @pathId, 'planned', @credits, @priority, @now, @now, @plannedItems, @order, 1, @record, @digest)
     ON CONFLICT (manifest, key) DO UPDATE SET credits_estimated = excluded.credits_estimated,
       request = CASE WHEN status = 'planned' THEN excluded.request ELSE request END, priority = excluded.priority,
       plan_order = excluded.plan_order, in_plan = 1, plan_job = excluded.plan_job, plan_digest = excluded.plan_digest,
       planned_items = CASE WHEN status = 'planned' THEN excluded.planned_items ELSE planned_items END
     WHERE status = 'planned'`,
  );
  const refresh = statement(engine.db, 'UPDATE jobs SET plan_job = ?, plan_digest = ? WHERE manifest = ? AND key = ?');
  // One scan of the manifest's statuses: a job already past `planned` is left as it is, unwritten
  // but for its record as planned when that changed (a finished 10,000-job manifest re-runs
  // without rewriting 10,000 rows).
  const recorded = new Map<string, [status: string, digest: string | null]>();
  for (const [key, status, digest] of statement(engine.db, 'SELECT key, status, plan_digest FROM jobs WHERE manifest = ?', { raw: true }).iterate(manifest) as Iterable<[string, string, string | null]>) {
    recorded.set(key, [status, digest]);
  }
  let known = 0;
  engine.atomically(() => {
    markPlan(engine.db, manifest, jobs.keys, statusesOf(recorded));
    // The plan is read once, a job at a time, and each written as it comes: one transaction, so
    // a run that dies while recording leaves the plan recorded before it, whole.
    let order = 0;
    for (const job of jobs) {
      const [status, digest] = recorded.get(job.key) ?? [];
      if (status !== undefined) known++;
      if (status !== undefined && status !== 'planned') {
        if (job.planned && digest !== job.planned.digest) refresh.run(job.planned.record, job.planned.digest, manifest, job.key);
        order++;
        continue;
      }
      insert.run({
        order: order++,
        key: job.key,
        manifest,
        step: job.step,
        kind: job.kind,
        outputName: job.outputName ?? null,
        request: JSON.stringify(job.request),
        pathId: job.pathId ?? null,
        credits: job.creditsEstimated,
        priority: job.priority ?? 0,
        now,
        plannedItems: job.plannedItems ? JSON.stringify(job.plannedItems) : null,
        record: job.planned?.record ?? null,
        digest: job.planned?.digest ?? null,
      });
    }
    // An edited row's earlier job (same step and output name, another key) is superseded: its
    // spend stays in every total, shown apart (state/sqlite/money.ts). Only a job outside the
    // plan can be: when every row is of the plan (a finished manifest run again) none is looked for.
    engine.charges.supersede(jobs.keys, jobs.steps, recorded.size > known);
    engine.event('plan:synced', null, { manifest, jobs: jobs.length, added: jobs.length - known });
  });
  return { added: jobs.length - known, known };
}

/** Each recorded job's key and status, one at a time. */
function* statusesOf(recorded: ReadonlyMap<string, readonly [status: string, digest: string | null]>): Generator<[string, string]> {
  for (const [key, [status]] of recorded) yield [key, status];
}
