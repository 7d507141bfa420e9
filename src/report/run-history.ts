import { hostname } from 'node:os';
import { readRunCredits, type JobStatus } from '../state/index.js';
import { pidIsAlive } from '../state/sqlite/lock.js';
import type { StateWord } from '../state/vocabulary.js';
import { openCurrent } from './job-facts.js';
import { wordCountsOf } from '../state/vocabulary.js';

/** A run of a manifest, as `reelpipe runs` lists it. Times are epoch milliseconds. */
export interface PastRun {
  id: number;
  startedAt: number;
  /** null while it runs, or when it died without recording its end. */
  finishedAt: number | null;
  /**
   * `finished`; `running` (its lock is held by a live process); `died` (no end recorded, and nobody
   * holds its lock); `refused` (its start was refused before any job moved: see `refusal`).
   */
  state: 'finished' | 'running' | 'died' | 'refused';
  /** `OK` or the code of the error it ended with; null without an end. */
  outcome: string | null;
  host: string;
  pid: number;
  /** The manifest's jobs per state when it ended (from its end record); null without one. */
  jobs: Partial<Record<StateWord, number>> | null;
  /**
   * What the remote jobs the run sent were charged, whenever they settled (state/sqlite/money.ts), a killed
   * run's too: the runs of a manifest sum to what it was charged. `unknown`: its jobs of a cost not reported (yet).
   */
  credits: { used: number; unknown: number };
  /** Why its start was refused: the first line of the message, credentials redacted; null for a run that started. */
  refusal: string | null;
}

/** `total`: the runs of the kinds listed (refused starts only with `all`), however many `limit` lets through; `refusedHidden`: refused starts left out. */
export interface RunHistory {
  runs: PastRun[];
  total: number;
  refusedHidden: number;
}

interface RunRow { id: number; started_at: number; finished_at: number | null; outcome: string | null; host: string; pid: number; refusal: string | null }
interface LockRow { run_id: number | null; host: string; pid: number }
interface Finished { counts?: Partial<Record<JobStatus, number>> }

/**
 * The newest `limit` runs of `manifest` in the state database at `dbPath`, newest first. Refused
 * starts are left out (and counted) unless `all`: cron refused every few minutes (a lock held
 * through the night) would push the runs that did something off the list. Read-only; a missing
 * database has no runs.
 */
export function readRunHistory(dbPath: string, manifest: string, limit: number, all = false): RunHistory {
  const db = openCurrent(dbPath);
  if (!db) return { runs: [], total: 0, refusedHidden: 0 };
  try {
    const counts = db.prepare('SELECT count(*) AS runs, count(refusal) AS refused FROM runs WHERE manifest = ?').get(manifest) as { runs: number; refused: number };
    const rows = db
      .prepare('SELECT id, started_at, finished_at, outcome, host, pid, refusal FROM runs WHERE manifest = ? AND (? OR refusal IS NULL) ORDER BY id DESC LIMIT ?')
      .all(manifest, all ? 1 : 0, limit) as RunRow[];
    // Run-level events have no job key: the (manifest, job_key) index finds them without reading the jobs' events.
    const ends = db.prepare("SELECT run_id, data FROM events WHERE manifest = ? AND job_key IS NULL AND type = 'run:finished' AND run_id >= ?");
    const finished = new Map((ends.all(manifest, rows.at(-1)?.id ?? 0) as { run_id: number; data: string | null }[]).map((e) => [e.run_id, parse(e.data)]));
    const locks = db.prepare('SELECT run_id, host, pid FROM locks WHERE name = ?').all(manifest) as LockRow[];
    const refusedHidden = all ? 0 : counts.refused;
    const charged = readRunCredits(db, manifest);
    return { runs: rows.map((row) => pastRun(row, finished.get(row.id), locks, charged.get(row.id))), total: counts.runs - refusedHidden, refusedHidden };
  } finally {
    db.close();
  }
}

function pastRun(row: RunRow, end: Finished | undefined, locks: readonly LockRow[], charged: { known: number; unknown: number } | undefined): PastRun {
  return {
    id: row.id,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    state: row.refusal !== null ? 'refused' : row.finished_at !== null ? 'finished' : holdsLock(row, locks) ? 'running' : 'died',
    outcome: row.outcome,
    host: row.host,
    pid: row.pid,
    jobs: end?.counts ? wordCountsOf(end.counts) : null,
    credits: { used: charged?.known ?? 0, unknown: charged?.unknown ?? 0 },
    refusal: row.refusal,
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
