import type Database from 'better-sqlite3';
import { FACTS_COLUMNS, factsRowsOf, RECORDED_OUTPUT_COLUMNS, recordedOutputsOf, type FactsRead, type FactsValues, type FactsWanted, type OutputValues, type RecordedOutput } from '../facts-rows.js';
import { anyPlaces, placesOf, placesWanted } from '../facts-places.js';
import { planScope, type PlanJobs } from '../plan-scope.js';
import { readAttemptsByJob } from './attempt-history.js';
import { readPlaces } from './job-history.js';
import { readItemsByJob } from './job-items.js';
import { readMoney } from './money.js';
import { openStateDbCurrent } from './open-db.js';
import { inPlaceOrder, mostOfState, tableRead } from './table-order.js';

export type { FactsRead, FactsRow, RecordedOutput } from '../facts-rows.js';
export { slotOf } from '../plan-scope.js';

const SELECT_JOBS = `SELECT ${FACTS_COLUMNS} FROM jobs WHERE manifest = ?`;
/** `scan`: the table read in its own order, a job's files put in order after (table-order.ts). */
const selectOutputs = (scan: boolean) => `SELECT ${RECORDED_OUTPUT_COLUMNS} FROM ${tableRead('outputs', scan)}
  WHERE manifest = ? AND path IS NOT NULL AND sha256 IS NOT NULL ${scan ? '' : 'ORDER BY job_key, idx'}`;

/**
 * The facts of `manifest`'s jobs in the state at `dbPath`, read-only and without a lock (so it
 * works while a run is going); undefined when there is no database. `wanted`: whether its rows
 * and money are read (the caller may hold them already, read at a run's end). Raw rows, one at a time, as
 * the store reads job states: no 10,000 arrays are held at once. The rows' places only when
 * they say something (facts-places.ts).
 */
export function readFactsAt(dbPath: string, manifest: string, planJobs: PlanJobs, wanted: FactsWanted): FactsRead | undefined {
  const db = openStateDbCurrent(dbPath);
  if (!db) return undefined;
  try {
    const scope = planScope(planJobs);
    const rows = wanted.rows ? factsRowsOf(db.prepare(SELECT_JOBS).raw().iterate(manifest) as Iterable<FactsValues>) : null;
    const jobs = rows ?? countJobs(db, manifest);
    const places = placesWanted(jobs, scope);
    const scan = mostOfState(db, manifest, typeof jobs === 'number' ? jobs : jobs.size);
    return {
      rows, ...placesOf(anyPlaces(places) ? readPlaces(db, manifest) : [], places, scope, planJobs), outputs: outputsByJob(db, manifest, scan),
      money: wanted.money ? readMoney(db, manifest, scope) : null, items: readItemsByJob(db, manifest), attempts: readAttemptsByJob(db, manifest, scan),
    };
  } finally {
    db.close();
  }
}

const countJobs = (db: Database.Database, manifest: string) => db.prepare('SELECT count(*) FROM jobs WHERE manifest = ?').pluck().get(manifest) as number;

function outputsByJob(db: Database.Database, manifest: string, scan: boolean): Map<string, RecordedOutput[]> {
  const outputs = recordedOutputsOf(db.prepare(selectOutputs(scan)).raw().iterate(manifest) as Iterable<OutputValues>);
  return scan ? inPlaceOrder(outputs) : outputs;
}
