import { planScope, readMoney, type MoneyTotals } from './money.js';
import { openStateDbCurrent } from './open-db.js';

/** What the database holds of a job's money: enough for the budget gate (plan/budget.ts). */
export interface JobMoneyRow {
  status: string;
  creditsReserved: number;
  creditsEstimated: number | null;
}

/** The budget gate's view of the database (plan/budget.ts RecordedMoney), and the totals it came from. */
export interface RecordedJobMoney {
  job(key: string): JobMoneyRow | undefined;
  spent: number;
  heldOutside: number;
  apart: MoneyTotals['apart'];
  totals: MoneyTotals;
}

/**
 * The money of `manifest` in the database at `dbPath`, for the plan's `jobs`: each job's status and
 * estimate, and the sums over every charge the manifest ever had (state/sqlite/money.ts). Read-only, no
 * lock; a missing database knows no job and no spend.
 */
export function readJobMoney(dbPath: string, manifest: string, jobs: readonly { key: string; step: string; outputName: string | null }[]): RecordedJobMoney {
  const rows = new Map<string, JobMoneyRow>();
  const db = openStateDbCurrent(dbPath);
  const scope = planScope(jobs);
  if (!db) return { job: () => undefined, spent: 0, heldOutside: 0, apart: { superseded: 0, removed: 0, forgotten: 0 }, totals: readMoneyOfNothing() };
  try {
    // One scan of the manifest's rows, not one query per key; raw rows through all(): iterate()
    // costs a round trip into SQLite per row (10,000 rows: 160 → 40 ms).
    const select = db.prepare('SELECT key, status, credits_reserved, credits_estimated FROM jobs WHERE manifest = ?');
    for (const [key, status, creditsReserved, creditsEstimated] of select.raw().all(manifest) as [string, string, number, number | null][]) {
      if (scope.keys.has(key)) rows.set(key, { status, creditsReserved, creditsEstimated });
    }
    const { totals } = readMoney(db, manifest, scope);
    let heldOutside = 0;
    for (const [key, held] of totals.held) if (!scope.keys.has(key)) heldOutside += held;
    return { job: (key) => rows.get(key), spent: totals.counted, heldOutside, apart: totals.apart, totals };
  } finally {
    db.close();
  }
}

function readMoneyOfNothing(): MoneyTotals {
  return { used: { known: 0, unknown: 0 }, apart: { superseded: 0, removed: 0, forgotten: 0 }, refunded: { total: 0, derived: 0 }, counted: 0, held: new Map() };
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
