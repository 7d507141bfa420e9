import type Database from 'better-sqlite3';
import type { AttemptRow, JobRow } from '../job-row.js';
import { readHookRuns, type HookRunRow } from './hook-runs.js';
import { StateStore } from './job-store.js';
import { RUN_LIST_COLUMNS, RUN_RECORD_COLUMNS, runListOf, type ListedRun, type RecordedRun, type RunListRow, type RunRecord } from '../run-rows.js';
import { readRunCredits } from './money.js';
import { memberRowOf, membersSql, type MemberRow } from '../member-rows.js';
import { openStateDbCurrent } from './open-db.js';
import { readRunWork, type RunWork } from './run-work.js';

/**
 * The readers of `runs`, the report's header, `doubt` and the hooks' facts: each opens the state
 * at `dbPath` read-only (migrated first when an older reelpipe left it), with no lock, so they
 * work while a run is going; a missing database reads as empty.
 */

export type { RunListRow, RunRecord } from '../run-rows.js';

/** The newest `limit` runs of `manifest`, newest first; refused starts only with `all` (counted apart). */
export function readRunList(dbPath: string, manifest: string, limit: number, all: boolean): { rows: RunListRow[]; runs: number; refused: number } {
  return withDb(dbPath, { rows: [], runs: 0, refused: 0 }, (db) => {
    const counts = db.prepare('SELECT count(*) AS runs, count(refusal) AS refused FROM runs WHERE manifest = ?').get(manifest) as { runs: number; refused: number };
    const rows = db
      .prepare(`SELECT ${RUN_LIST_COLUMNS} FROM runs WHERE manifest = ? AND (? OR refusal IS NULL) ORDER BY id DESC LIMIT ?`)
      .all(manifest, all ? 1 : 0, limit) as ListedRun[];
    // Run-level events have no job key: their own index (events_of_runs) finds them without reading the jobs' events.
    const ends = db.prepare("SELECT run_id, data FROM events WHERE manifest = ? AND job_key IS NULL AND type = 'run:finished' AND run_id >= ?")
      .all(manifest, rows.at(-1)?.id ?? 0) as { run_id: number; data: string | null }[];
    const locks = db.prepare('SELECT run_id, host, pid FROM locks WHERE name = ?').all(manifest) as { run_id: number | null; host: string; pid: number }[];
    return { runs: counts.runs, refused: counts.refused, rows: runListOf(rows, ends, locks, readRunCredits(db, manifest, rows.map((row) => row.id))) };
  });
}

/** One run of `manifest` (default: its newest that started) with the jobs its events name (and, with `credits`, its charges summed); `ids`: its newest runs, when there is no such run. */
export function readRunRecord(dbPath: string, manifest: string, runId?: number, credits = true): RunRecord | null | undefined {
  return withDb<RunRecord | null | undefined>(dbPath, undefined, (db) => {
    const select = `SELECT ${RUN_RECORD_COLUMNS} FROM runs WHERE manifest = ?`;
    const run = (runId === undefined
      ? db.prepare(`${select} AND refusal IS NULL ORDER BY id DESC LIMIT 1`).get(manifest)
      : db.prepare(`${select} AND id = ?`).get(manifest, runId)) as RecordedRun | undefined;
    if (!run) {
      if (runId === undefined) return null;
      return { missing: true, ids: db.prepare('SELECT id FROM runs WHERE manifest = ? ORDER BY id DESC LIMIT 10').pluck().all(manifest) as number[] };
    }
    // In key order, as PostgreSQL gives them (the index holds a run's events in id order: sorted here, no slower than de-duplicated unsorted).
    const keys = db.prepare('SELECT DISTINCT job_key FROM events WHERE run_id = ? AND manifest = ? AND job_key IS NOT NULL ORDER BY job_key').pluck().all(run.id, manifest) as string[];
    return { run, jobKeys: new Set(keys), charged: credits ? readRunCredits(db, manifest, [run.id]).get(run.id) : undefined };
  });
}

/** The members of the manifest's newest run (member-rows.ts): on SQLite, its one process. */
export function readMembersAt(dbPath: string, manifest: string): MemberRow[] {
  return withDb(dbPath, [], (db) => (db.prepare(membersSql('@m')).all({ m: manifest }) as Record<string, unknown>[]).map(memberRowOf));
}

/** The manifest's newest run and its newest run that changed a job (run-work.ts). */
export function readLastWorkAt(dbPath: string, manifest: string): { newest: RunWork | null; worked: RunWork | null } {
  return withDb(dbPath, { newest: null, worked: null }, (db) => readRunWork(db, manifest));
}

/** Each job's output-hook runs and the manifest's newest on_finish (hook-runs.ts). */
export function readHookRunsAt(dbPath: string, manifest: string): { byJob: Map<string, HookRunRow[]>; lastFinish: HookRunRow | null } {
  return withDb(dbPath, { byJob: new Map<string, HookRunRow[]>(), lastFinish: null }, (db) => readHookRuns(db, manifest));
}

/** The manifest's jobs in doubt, each with its last attempt. */
export function readInDoubtAt(dbPath: string, manifest: string): { row: JobRow; attempt: AttemptRow | undefined }[] {
  return withDb(dbPath, [], (db) => {
    const store = new StateStore(db).useManifest(manifest);
    return store.jobsWithStatus(['in_doubt']).map((row) => ({ row, attempt: store.lastAttempt(row.key) }));
  });
}

function withDb<T>(dbPath: string, none: T, read: (db: Database.Database) => T): T {
  const db = openStateDbCurrent(dbPath);
  if (!db) return none;
  try {
    return read(db);
  } finally {
    db.close();
  }
}
