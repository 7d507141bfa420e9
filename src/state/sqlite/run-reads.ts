import type Database from 'better-sqlite3';
import type { AttemptRow, JobRow } from '../job-row.js';
import type { JobStatus } from '../job-status.js';
import { readHookRuns, type HookRunRow } from './hook-runs.js';
import { StateStore } from './job-store.js';
import { readRunCredits, type CreditPair } from './money.js';
import { openStateDbCurrent } from './open-db.js';
import { readRunWork, type RunWork } from './run-work.js';

/**
 * The readers of `runs`, the report's header, `doubt` and the hooks' facts: each opens the state
 * at `dbPath` read-only (migrated first when an older reelpipe left it), with no lock, so they
 * work while a run is going; a missing database reads as empty.
 */

/** A run's row as `reelpipe runs` lists it, with its recorded end, its lock (if held) and its charges. */
export interface RunListRow {
  id: number;
  startedAt: number;
  finishedAt: number | null;
  outcome: string | null;
  host: string;
  pid: number;
  /** The manifest file it was started from (its real path); null for a run recorded before runs kept it. */
  manifestPath: string | null;
  refusal: string | null;
  /** The jobs per status its end recorded; undefined without an end. */
  endCounts: Partial<Record<JobStatus, number>> | undefined;
  /** The lock row held under its id, if any. */
  lock: { host: string; pid: number } | undefined;
  charged: CreditPair | undefined;
}

interface RunRow { id: number; started_at: number; finished_at: number | null; outcome: string | null; host: string; pid: number; manifest_path: string | null; refusal: string | null }

/** The newest `limit` runs of `manifest`, newest first; refused starts only with `all` (counted apart). */
export function readRunList(dbPath: string, manifest: string, limit: number, all: boolean): { rows: RunListRow[]; runs: number; refused: number } {
  return withDb(dbPath, { rows: [], runs: 0, refused: 0 }, (db) => {
    const counts = db.prepare('SELECT count(*) AS runs, count(refusal) AS refused FROM runs WHERE manifest = ?').get(manifest) as { runs: number; refused: number };
    const rows = db
      .prepare('SELECT id, started_at, finished_at, outcome, host, pid, manifest_path, refusal FROM runs WHERE manifest = ? AND (? OR refusal IS NULL) ORDER BY id DESC LIMIT ?')
      .all(manifest, all ? 1 : 0, limit) as RunRow[];
    // Run-level events have no job key: the (manifest, job_key) index finds them without reading the jobs' events.
    const ends = db.prepare("SELECT run_id, data FROM events WHERE manifest = ? AND job_key IS NULL AND type = 'run:finished' AND run_id >= ?");
    const finished = new Map((ends.all(manifest, rows.at(-1)?.id ?? 0) as { run_id: number; data: string | null }[]).map((e) => [e.run_id, countsOf(e.data)]));
    const locks = db.prepare('SELECT run_id, host, pid FROM locks WHERE name = ?').all(manifest) as { run_id: number | null; host: string; pid: number }[];
    const charged = readRunCredits(db, manifest);
    return {
      runs: counts.runs,
      refused: counts.refused,
      rows: rows.map((row) => {
        const lock = locks.find((l) => l.run_id === row.id);
        return {
          id: row.id, startedAt: row.started_at, finishedAt: row.finished_at, outcome: row.outcome, host: row.host, pid: row.pid,
          manifestPath: row.manifest_path, refusal: row.refusal,
          endCounts: finished.get(row.id), lock: lock ? { host: lock.host, pid: lock.pid } : undefined, charged: charged.get(row.id),
        };
      }),
    };
  });
}

/** One run of `manifest` (default: its newest that started) with the jobs its events name; `ids`: its newest runs, when there is no such run. */
export type RunRecord =
  | { run: { id: number; startedAt: number; finishedAt: number | null; outcome: string | null; maxCredits: number | null }; jobKeys: Set<string>; charged: CreditPair | undefined }
  | { missing: true; ids: number[] };

export function readRunRecord(dbPath: string, manifest: string, runId?: number): RunRecord | null | undefined {
  return withDb<RunRecord | null | undefined>(dbPath, undefined, (db) => {
    const select = 'SELECT id, started_at, finished_at, outcome, max_credits FROM runs WHERE manifest = ?';
    const row = (runId === undefined
      ? db.prepare(`${select} AND refusal IS NULL ORDER BY id DESC LIMIT 1`).get(manifest)
      : db.prepare(`${select} AND id = ?`).get(manifest, runId)) as { id: number; started_at: number; finished_at: number | null; outcome: string | null; max_credits: number | null } | undefined;
    if (!row) {
      if (runId === undefined) return null;
      return { missing: true, ids: db.prepare('SELECT id FROM runs WHERE manifest = ? ORDER BY id DESC LIMIT 10').pluck().all(manifest) as number[] };
    }
    const keys = db.prepare('SELECT DISTINCT job_key FROM events WHERE run_id = ? AND manifest = ? AND job_key IS NOT NULL').pluck().all(row.id, manifest) as string[];
    return {
      run: { id: row.id, startedAt: row.started_at, finishedAt: row.finished_at, outcome: row.outcome, maxCredits: row.max_credits },
      jobKeys: new Set(keys),
      charged: readRunCredits(db, manifest).get(row.id),
    };
  });
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

function countsOf(data: string | null): Partial<Record<JobStatus, number>> | undefined {
  if (!data) return undefined;
  try {
    return (JSON.parse(data) as { counts?: Partial<Record<JobStatus, number>> }).counts;
  } catch {
    return undefined;
  }
}
