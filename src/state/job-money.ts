import { openStateDbReadOnly } from './open-db.js';

/** What the database holds of a job's money: enough for the budget gate (plan/budget.ts). */
export interface JobMoneyRow {
  status: string;
  creditsUsed: number | null;
  creditsReserved: number;
  creditsPrior: number;
  creditsEstimated: number | null;
}

/**
 * The money of each of `keys` among `manifest`'s jobs in the database at `dbPath`: read-only, no
 * lock; a missing database (or one with no jobs table yet) knows no job.
 */
export function readJobMoney(dbPath: string, manifest: string, keys: Iterable<string>): Map<string, JobMoneyRow> {
  const out = new Map<string, JobMoneyRow>();
  const db = openStateDbReadOnly(dbPath);
  if (!db) return out;
  try {
    if (!db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'jobs'").get()) return out;
    const hasPrior = (db.prepare('PRAGMA table_info(jobs)').all() as { name: string }[]).some((c) => c.name === 'credits_prior');
    // One scan of the manifest's rows, not one query per key.
    const wanted = new Set(keys);
    const select = db.prepare(
      `SELECT key, status, credits_used AS creditsUsed, credits_reserved AS creditsReserved, ${hasPrior ? 'credits_prior' : '0'} AS creditsPrior,
         credits_estimated AS creditsEstimated
       FROM jobs WHERE manifest = ?`,
    );
    for (const { key, ...row } of select.iterate(manifest) as Iterable<JobMoneyRow & { key: string }>) if (wanted.has(key)) out.set(key, row);
  } finally {
    db.close();
  }
  return out;
}
