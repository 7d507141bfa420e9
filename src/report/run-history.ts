import { thisHost } from '../util/host-name.js';
import { pidIsAlive, stateAt, type RunListRow } from '../state/index.js';
import type { StateWord } from '../state/vocabulary.js';
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
  /** The manifest file it was started from (its real path); null for a run recorded before runs kept it. */
  manifestPath: string | null;
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

/**
 * The newest `limit` runs of `manifest` in the state database at `dbPath`, newest first. Refused
 * starts are left out (and counted) unless `all`: cron refused every few minutes (a lock held
 * through the night) would push the runs that did something off the list. Read-only; a missing
 * database has no runs.
 */
export async function readRunHistory(dbPath: string, manifest: string, limit: number, all = false): Promise<RunHistory> {
  const read = await stateAt(dbPath).runs(manifest, limit, all);
  const refusedHidden = all ? 0 : read.refused;
  return { runs: read.rows.map(pastRun), total: read.runs - refusedHidden, refusedHidden };
}

function pastRun(row: RunListRow): PastRun {
  return {
    id: row.id,
    startedAt: row.startedAt,
    finishedAt: row.finishedAt,
    state: row.refusal !== null ? 'refused' : row.finishedAt !== null ? 'finished' : holdsLock(row.lock) ? 'running' : 'died',
    outcome: row.outcome,
    host: row.host,
    pid: row.pid,
    manifestPath: row.manifestPath,
    jobs: row.endCounts ? wordCountsOf(row.endCounts) : null,
    credits: { used: row.charged?.known ?? 0, unknown: row.charged?.unknown ?? 0 },
    refusal: row.refusal,
  };
}

/**
 * Whether a run without an end is still going: its lock row is there, and — on this host, where
 * a pid can be probed — its process is alive. A run killed with -9 leaves its lock behind; its
 * dead pid tells it apart (another host's run is taken at its lock's word until a run breaks it).
 */
function holdsLock(lock: RunListRow['lock']): boolean {
  if (!lock) return false;
  return lock.host !== thisHost() || pidIsAlive(lock.pid);
}
