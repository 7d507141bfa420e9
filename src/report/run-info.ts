import { UsageError } from '../errors.js';
import { readRunCredits } from '../state/index.js';
import { readRunWork, type RunWork } from '../state/sqlite/run-work.js';
import { openCurrent } from './job-facts.js';

/** The run a report is about: when it ran, how it ended, and which jobs it changed. */
export interface RunInfo {
  id: number;
  startedAt: number;
  finishedAt: number | null;
  /** `OK`, or the code of the error it ended with (BUDGET_EXCEEDED, INTERRUPTED, …); null while running. */
  outcome: string | null;
  maxCredits: number | null;
  /**
   * What the remote jobs this run sent were charged, whenever they settled (state/sqlite/money.ts): the
   * figure `reelpipe runs` gives it, and the runs of a manifest sum to what it was charged.
   */
  credits: { used: number; unknown: number };
  jobKeys: Set<string>;
}

interface RunRow { id: number; started_at: number; finished_at: number | null; outcome: string | null; max_credits: number | null }

/**
 * The run `runId` of `manifest` (default: its newest that started — a refused start moved no job,
 * and one refused before its state was opened kept no log), or null when it has none. A run id
 * the manifest does not have is a usage error naming the ones it has.
 */
export function readRun(dbPath: string, manifest: string, runId?: number): RunInfo | null {
  const db = openCurrent(dbPath);
  if (!db) {
    if (runId !== undefined) throw new UsageError(`--run ${runId}: no state database at ${dbPath}, so no runs`);
    return null;
  }
  try {
    const select = 'SELECT id, started_at, finished_at, outcome, max_credits FROM runs WHERE manifest = ?';
    const row = (runId === undefined
      ? db.prepare(`${select} AND refusal IS NULL ORDER BY id DESC LIMIT 1`).get(manifest)
      : db.prepare(`${select} AND id = ?`).get(manifest, runId)) as RunRow | undefined;
    if (!row) {
      if (runId === undefined) return null;
      const ids = db.prepare('SELECT id FROM runs WHERE manifest = ? ORDER BY id DESC LIMIT 10').pluck().all(manifest) as number[];
      throw new UsageError(`--run ${runId}: no such run of ${manifest}; its runs are ${ids.length ? ids.join(', ') : 'none yet'} (newest first)`);
    }
    const keys = db.prepare('SELECT DISTINCT job_key FROM events WHERE run_id = ? AND manifest = ? AND job_key IS NOT NULL').pluck().all(row.id, manifest) as string[];
    const charged = readRunCredits(db, manifest).get(row.id);
    return {
      id: row.id, startedAt: row.started_at, finishedAt: row.finished_at, outcome: row.outcome, maxCredits: row.max_credits,
      credits: { used: charged?.known ?? 0, unknown: charged?.unknown ?? 0 }, jobKeys: new Set(keys),
    };
  } finally {
    db.close();
  }
}

/** The manifest's newest run and its newest run that changed a job (state/sqlite/run-work.ts), for the report's header. */
export interface LastWork {
  newest: RunWork | null;
  worked: RunWork | null;
}

/** Which run last did work (changed a job) of `manifest`, and whether its newest run did nothing. Reads only. */
export function readLastWork(dbPath: string, manifest: string): LastWork {
  const db = openCurrent(dbPath);
  if (!db) return { newest: null, worked: null };
  try {
    return readRunWork(db, manifest);
  } finally {
    db.close();
  }
}
