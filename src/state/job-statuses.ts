import type { JobStatus } from './job-status.js';
import { openStateDbReadOnly } from './open-db.js';

/** How `plan` shows a job against what the state database knows. */
export type PlanJobState = 'new' | 'done' | 'changed' | 'in flight' | 'failed' | 'in doubt';

/** A planned job's identity: its key, and (to tell "changed" from "new") its step and output name. */
export interface JobSlot {
  key: string;
  step?: string;
  outputName?: string | null;
}

const SHOWN_AS: Record<JobStatus, PlanJobState> = {
  planned: 'new',
  submitting: 'in flight',
  submitted: 'in flight',
  running: 'in flight',
  // Finished remotely but not yet downloaded: the next run still has work to do for it.
  done: 'in flight',
  downloaded: 'done',
  failed: 'failed',
  rejected: 'failed',
  in_doubt: 'in doubt',
};

/**
 * The state of each planned job in the database at `dbPath`: read-only, takes no lock, and a
 * missing database means every job is new (an empty map). A key the database does not know is
 * `changed` when a job of the same step and output name exists under another key (its inputs
 * changed, so its key did), else `new`. Jobs belong to a manifest: with `manifest` (its absolute
 * path, as the run records it) only that manifest's rows count; without it, any manifest's row
 * with the key does (the view before jobs were scoped by manifest).
 */
export function readJobStatuses(dbPath: string, jobs: Iterable<string | JobSlot>, manifest?: string): Map<string, PlanJobState> {
  const out = new Map<string, PlanJobState>();
  const db = openStateDbReadOnly(dbPath);
  if (!db) return out;
  try {
    const hasJobs = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'jobs'").get();
    if (!hasJobs) return out;
    const scope = manifest ?? null;
    const byKey = db.prepare('SELECT status, attempt_count FROM jobs WHERE key = ? AND (? IS NULL OR manifest = ?)');
    const bySlot = db.prepare('SELECT 1 FROM jobs WHERE step = ? AND output_name = ? AND key <> ? AND (? IS NULL OR manifest = ?) LIMIT 1');
    for (const item of jobs) {
      const slot: JobSlot = typeof item === 'string' ? { key: item } : item;
      const row = byKey.get(slot.key, scope, scope) as { status: JobStatus; attempt_count: number } | undefined;
      if (row) {
        out.set(slot.key, SHOWN_AS[row.status]);
      } else if (slot.step !== undefined && slot.outputName && bySlot.get(slot.step, slot.outputName, slot.key, scope, scope)) {
        out.set(slot.key, 'changed');
      } else {
        out.set(slot.key, 'new');
      }
    }
  } finally {
    db.close();
  }
  return out;
}
