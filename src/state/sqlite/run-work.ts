import type Database from 'better-sqlite3';

/** A run of a manifest and how many of its jobs it changed (the jobs its events name). */
export interface RunWork {
  id: number;
  startedAt: number;
  finishedAt: number | null;
  /** `OK` or the code of the error it ended with; null without an end. */
  outcome: string | null;
  jobs: number;
}

interface RunRow { id: number; started_at: number; finished_at: number | null; outcome: string | null }

const RUNS = 'SELECT id, started_at, finished_at, outcome FROM runs WHERE manifest = ? AND refusal IS NULL';

/**
 * The manifest's newest run that started (a refused start moved nothing) and its newest run that
 * changed a job — recorded an event of one — each with how many jobs it changed; the same run
 * when the newest did work. What a report's header says of the runs. Reads only; the events'
 * (run_id, manifest, id, job_key) index finds a run's job events without reading the others'.
 */
export function readRunWork(db: Database.Database, manifest: string): { newest: RunWork | null; worked: RunWork | null } {
  const newest = db.prepare(`${RUNS} ORDER BY id DESC LIMIT 1`).get(manifest) as RunRow | undefined;
  if (!newest) return { newest: null, worked: null };
  const changed = (row: RunRow): RunWork => ({
    id: row.id, startedAt: row.started_at, finishedAt: row.finished_at, outcome: row.outcome,
    jobs: db.prepare('SELECT count(DISTINCT job_key) FROM events WHERE run_id = ? AND manifest = ? AND job_key IS NOT NULL').pluck().get(row.id, manifest) as number,
  });
  const last = changed(newest);
  if (last.jobs > 0) return { newest: last, worked: last };
  const worked = db
    .prepare(`${RUNS} AND id < ? AND EXISTS (SELECT 1 FROM events WHERE events.run_id = runs.id AND events.manifest = runs.manifest AND events.job_key IS NOT NULL) ORDER BY id DESC LIMIT 1`)
    .get(manifest, newest.id) as RunRow | undefined;
  return { newest: last, worked: worked ? changed(worked) : null };
}
