import { hostname } from 'node:os';
import { readRunCredits, type JobStatus } from '../state/index.js';
import { pidIsAlive } from '../state/lock/lock.js';
import type { StateWord } from '../state/vocabulary.js';
import { openCurrent } from './job-facts.js';
import { wordCountsOf } from '../state/vocabulary.js';

/** A run of a manifest, as `reelpipe runs` lists it. Times are epoch milliseconds. */
export interface PastRun {
  id: number;
  startedAt: number;
  /** null while it runs, or when it died without recording its end. */
  finishedAt: number | null;
  /** `finished`; `running` (its lock is held by a live process); `died` (no end recorded, and nobody holds its lock). */
  state: 'finished' | 'running' | 'died';
  /** `OK` or the code of the error it ended with; null without an end. */
  outcome: string | null;
  host: string;
  pid: number;
  /** The manifest's jobs per state when it ended (from its end record); null without one. */
  jobs: Partial<Record<StateWord, number>> | null;
  /**
   * What the remote jobs the run sent were charged, whenever they settled (state/money.ts), a killed
   * run's too: the runs of a manifest sum to what it was charged. `unknown`: its jobs of a cost not reported (yet).
   */
  credits: { used: number; unknown: number };
}

interface RunRow { id: number; started_at: number; finished_at: number | null; outcome: string | null; host: string; pid: number }
interface LockRow { run_id: number | null; host: string; pid: number }
interface Finished { counts?: Partial<Record<JobStatus, number>> }

/**
 * The newest `limit` runs of `manifest` in the state database at `dbPath`, newest first, and how
 * many there are in all. Read-only; a missing database has no runs.
 */
export function readRunHistory(dbPath: string, manifest: string, limit: number): { runs: PastRun[]; total: number } {
  const db = openCurrent(dbPath);
  if (!db) return { runs: [], total: 0 };
  try {
    const total = db.prepare('SELECT count(*) FROM runs WHERE manifest = ?').pluck().get(manifest) as number;
    const rows = db.prepare('SELECT id, started_at, finished_at, outcome, host, pid FROM runs WHERE manifest = ? ORDER BY id DESC LIMIT ?').all(manifest, limit) as RunRow[];
    // Run-level events have no job key: the (manifest, job_key) index finds them without reading the jobs' events.
    const ends = db.prepare("SELECT run_id, data FROM events WHERE manifest = ? AND job_key IS NULL AND type = 'run:finished' AND run_id >= ?");
    const finished = new Map((ends.all(manifest, rows.at(-1)?.id ?? 0) as { run_id: number; data: string | null }[]).map((e) => [e.run_id, parse(e.data)]));
    const locks = db.prepare('SELECT run_id, host, pid FROM locks WHERE name = ?').all(manifest) as LockRow[];
    const charged = readRunCredits(db, manifest);
    return { runs: rows.map((row) => pastRun(row, finished.get(row.id), locks, charged.get(row.id))), total };
  } finally {
    db.close();
  }
}

function pastRun(row: RunRow, end: Finished | undefined, locks: readonly LockRow[], charged: { known: number; unknown: number } | undefined): PastRun {
  return {
    id: row.id,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    state: row.finished_at !== null ? 'finished' : holdsLock(row, locks) ? 'running' : 'died',
    outcome: row.outcome,
    host: row.host,
    pid: row.pid,
    jobs: end?.counts ? wordCountsOf(end.counts) : null,
    credits: { used: charged?.known ?? 0, unknown: charged?.unknown ?? 0 },
  };
}

/**
 * Whether a run without an end is still going: its lock row is there, and — on this host, where
 * a pid can be probed — its process is alive. A run killed with -9 leaves its lock behind; its
 * dead pid tells it apart (another host's run is taken at its lock's word until a run breaks it).
 */
function holdsLock(row: RunRow, locks: readonly LockRow[]): boolean {
  const lock = locks.find((l) => l.run_id === row.id);
  if (!lock) return false;
  return lock.host !== hostname() || pidIsAlive(lock.pid);
}

function parse(data: string | null): Finished | undefined {
  if (!data) return undefined;
  try {
    return JSON.parse(data) as Finished;
  } catch {
    return undefined;
  }
}
