import type { JobStatus } from './job-status.js';
import type { CreditPair } from './money-sums.js';

/** The runs as `reelpipe runs` and the report's header show them, whatever store read them. */

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

/** A run's own columns of a RunListRow (RUN_LIST_COLUMNS). */
export type ListedRun = Omit<RunListRow, 'endCounts' | 'lock' | 'charged'>;

/** A run's own columns of the runs table, named as RunListRow names them: the same text in every store's SELECT. */
export const RUN_LIST_COLUMNS = 'id, started_at AS "startedAt", finished_at AS "finishedAt", outcome, host, pid, manifest_path AS "manifestPath", refusal';

/** One run of a manifest (default: its newest that started) with the jobs its events name and what it was charged (undefined: nothing, or not summed); `ids`: its newest runs, when there is no such run. */
export type RunRecord = { run: RecordedRun; jobKeys: Set<string>; charged: CreditPair | undefined } | { missing: true; ids: number[] };

export interface RecordedRun {
  id: number;
  startedAt: number;
  finishedAt: number | null;
  outcome: string | null;
  maxCredits: number | null;
  /** The host it ran on (REELPIPE_HOST or the machine's name). */
  host: string;
}

/** A RecordedRun's columns of the runs table, named as it names them. */
export const RUN_RECORD_COLUMNS = 'id, started_at AS "startedAt", finished_at AS "finishedAt", outcome, max_credits AS "maxCredits", host';

/**
 * The runs listed (RUN_LIST_COLUMNS), each with its end — the `run:finished` events among `ends`
 * — the lock held under its id among `locks`, and its charges.
 */
export function runListOf(
  runs: readonly ListedRun[],
  ends: readonly { run_id: number; data: string | null }[],
  locks: readonly { run_id: number | null; host: string; pid: number }[],
  charged: Map<number, CreditPair>,
): RunListRow[] {
  const finished = new Map(ends.map((e) => [e.run_id, countsOf(e.data)]));
  return runs.map((run) => {
    const lock = locks.find((l) => l.run_id === run.id);
    return { ...run, endCounts: finished.get(run.id), lock: lock ? { host: lock.host, pid: lock.pid } : undefined, charged: charged.get(run.id) };
  });
}

function countsOf(data: string | null): Partial<Record<JobStatus, number>> | undefined {
  if (!data) return undefined;
  try {
    return (JSON.parse(data) as { counts?: Partial<Record<JobStatus, number>> }).counts;
  } catch {
    return undefined;
  }
}
