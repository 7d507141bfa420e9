import type Database from 'better-sqlite3';
import type { KeySet } from '../job-change.js';
import type { JobStatus } from '../job-status.js';
import type { StateStore } from './job-store.js';
import { planMarks } from '../plan-marks.js';
import { statement } from './statements.js';

const CLAIMED: readonly JobStatus[] = ['planned', 'submitting', 'submitted', 'running', 'in_doubt'];
/** The statuses a claim hands out (with `downloads`, `done` too): a job to send, reconcile or track. */
export const CLAIMED_STATUSES = CLAIMED.map((status) => `'${status}'`).join(', ');
/** The statuses of the jobs a claim can hand out: the ready index's (below). */
export const CLAIMABLE: ReadonlySet<string> = new Set<string>([...CLAIMED, 'done']);
/**
 * Every status the ready index holds (migration 24's jobs_ready, whose text must not change): the
 * claimed ones and `done`. SQLite uses a partial index only for a query that names its condition
 * as written, so both claims name it and the one without downloads leaves `done` out beside it.
 */
export const READY_INDEX_STATUSES = `${CLAIMED_STATUSES}, 'done'`;

/**
 * The ready jobs of the manifest's plan not claimed by a run, in ready order (see claimReady):
 * read from jobs_ready in its own order (no sort), so a claim reads as far as its window and the
 * jobs claimed before it that are still to finish, never the whole plan.
 */
const claimable = (downloads: boolean) => `SELECT key, status FROM jobs
  WHERE manifest = ? AND in_plan = 1 AND status IN (${READY_INDEX_STATUSES})${downloads ? '' : ` AND status <> 'done'`} AND claim_run IS NOT ?
  ORDER BY status = 'planned', CASE WHEN status = 'planned' THEN -priority ELSE 0 END, plan_order, key
  LIMIT ?`;
const CLAIMABLE_ONLY = claimable(false);
const CLAIMABLE_WITH_DOWNLOADS = claimable(true);

/**
 * Up to `limit` ready jobs of the plan last recorded for the manifest (syncPlan's in_plan) that
 * run `runId` has not claimed yet, marked as claimed by it (jobs.claim_run, migration 18), in the
 * one ready order (run/ready-order.ts): jobs already sent first (they hold the service's capacity;
 * among them, plan order), then the planned ones by priority descending, then plan order. Inside
 * the caller's transaction, so a job is handed out once per run.
 */
export function claimReady(engine: StateStore, runId: number, limit: number, downloads = false): { key: string; status: JobStatus }[] {
  const rows = statement(engine.db, downloads ? CLAIMABLE_WITH_DOWNLOADS : CLAIMABLE_ONLY, { raw: true }).all(engine.manifest, runId, limit) as [string, JobStatus][];
  const mark = statement(engine.db, 'UPDATE jobs SET claim_run = ? WHERE manifest = ? AND key = ?');
  for (const [key] of rows) mark.run(runId, engine.manifest, key);
  return rows.map(([key, status]) => ({ key, status }));
}

/**
 * The plan's marks (in_plan), by the one rule of plan-marks.ts, inside syncPlan's transaction.
 * Why the marks are read from the claimable jobs alone (the rule asks for no other): in_plan is
 * stored after a job's request and answer, so reading it from every row read every answer's pages
 * (a finished 20,000-job manifest took twice as long to re-run).
 */
export function markPlan(db: Database.Database, manifest: string, keys: KeySet, statuses: Iterable<readonly [key: string, status: string, ...rest: unknown[]]>): void {
  const marked = new Set(statement(db, `SELECT key FROM jobs WHERE manifest = ? AND in_plan = 1 AND status IN (${READY_INDEX_STATUSES})`, { pluck: true }).all(manifest) as string[]);
  // One job at a time, not a list of 100,000: the only ones the rule keeps are the few to write.
  const recorded = function* () {
    for (const [key, status] of statuses) yield { key, status, marked: marked.has(key) };
  };
  const { entering, leaving } = planMarks(recorded(), keys);
  const mark = statement(db, 'UPDATE jobs SET in_plan = ? WHERE manifest = ? AND key = ?');
  for (const key of entering) mark.run(1, manifest, key);
  for (const key of leaving) mark.run(0, manifest, key);
}
