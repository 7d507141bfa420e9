import type Database from 'better-sqlite3';
import { FACTS_COLUMNS, factsRowsOf, RECORDED_OUTPUT_COLUMNS, recordedOutputsOf, type FactsRead, type FactsValues, type FactsWanted, type OutputValues } from '../facts-rows.js';
import { anyPlaces, placesOf, placesWanted } from '../facts-places.js';
import { planScope, type PlanJob } from '../plan-scope.js';
import { readAttemptsByJob } from './attempt-history.js';
import { readPlaces } from './job-history.js';
import { readItemsByJob } from './job-items.js';
import { readMoney } from './money.js';
import { openStateDbCurrent } from './open-db.js';

export type { FactsRead, FactsRow, RecordedOutput } from '../facts-rows.js';
export { slotOf } from '../plan-scope.js';

const SELECT_JOBS = `SELECT ${FACTS_COLUMNS} FROM jobs WHERE manifest = ?`;
const SELECT_OUTPUTS = `SELECT ${RECORDED_OUTPUT_COLUMNS} FROM outputs
  WHERE manifest = ? AND path IS NOT NULL AND sha256 IS NOT NULL ORDER BY job_key, idx`;

/**
 * The facts of `manifest`'s jobs in the state at `dbPath`, read-only and without a lock (so it
 * works while a run is going); undefined when there is no database. `wanted`: whether its rows
 * and money are read (the caller may hold them already, read at a run's end). Raw rows, one at a time, as
 * the store reads job states: no 10,000 arrays are held at once. The rows' places only when
 * they say something (facts-places.ts).
 */
export function readFactsAt(dbPath: string, manifest: string, planJobs: readonly PlanJob[], wanted: FactsWanted): FactsRead | undefined {
  const db = openStateDbCurrent(dbPath);
  if (!db) return undefined;
  try {
    const scope = planScope(planJobs);
    const rows = wanted.rows ? factsRowsOf(db.prepare(SELECT_JOBS).raw().iterate(manifest) as Iterable<FactsValues>) : null;
    const places = placesWanted(rows ?? countJobs(db, manifest), scope);
    return {
      rows, ...placesOf(anyPlaces(places) ? readPlaces(db, manifest) : [], places, scope, planJobs), outputs: outputsByJob(db, manifest),
      money: wanted.money ? readMoney(db, manifest, scope) : null, items: readItemsByJob(db, manifest), attempts: readAttemptsByJob(db, manifest),
    };
  } finally {
    db.close();
  }
}

const countJobs = (db: Database.Database, manifest: string) => db.prepare('SELECT count(*) FROM jobs WHERE manifest = ?').pluck().get(manifest) as number;

const outputsByJob = (db: Database.Database, manifest: string) => recordedOutputsOf(db.prepare(SELECT_OUTPUTS).raw().iterate(manifest) as Iterable<OutputValues>);
