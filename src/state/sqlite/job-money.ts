import { planScope, type PlanJobs } from '../plan-scope.js';
import { JOB_MONEY_COLUMNS, recordedJobMoney, type JobMoneyValues, type RecordedJobMoney } from '../recorded-money.js';
import { readMoney } from './money.js';
import { openStateDbCurrent } from './open-db.js';

export type { JobMoneyRow, RecordedJobMoney } from '../recorded-money.js';

/**
 * The money of `manifest` in the database at `dbPath`, for the plan's `jobs` (recorded-money.ts).
 * Read-only, no lock; a missing database knows no job and no spend.
 */
export function readJobMoney(dbPath: string, manifest: string, jobs: PlanJobs): RecordedJobMoney {
  const db = openStateDbCurrent(dbPath);
  const scope = planScope(jobs);
  if (!db) return recordedJobMoney([], scope);
  try {
    // One scan of the manifest's rows, not one query per key; raw rows through all(): iterate()
    // costs a round trip into SQLite per row (10,000 rows: 160 → 40 ms).
    const rows = db.prepare(`SELECT ${JOB_MONEY_COLUMNS} FROM jobs WHERE manifest = ?`).raw().all(manifest) as JobMoneyValues[];
    return recordedJobMoney(rows, scope, readMoney(db, manifest, scope).totals);
  } finally {
    db.close();
  }
}

/** Each recorded job's status, by key, of `manifest` in the database at `dbPath` (read-only); empty without one. */
export function readJobStatuses(dbPath: string, manifest: string): Map<string, string> {
  const statuses = new Map<string, string>();
  const db = openStateDbCurrent(dbPath);
  if (!db) return statuses;
  try {
    for (const [key, status] of db.prepare('SELECT key, status FROM jobs WHERE manifest = ?').raw().iterate(manifest) as Iterable<[string, string]>) statuses.set(key, status);
  } finally {
    db.close();
  }
  return statuses;
}
