import type Database from 'better-sqlite3';
import { ATTEMPT_RECORD_COLUMNS, attemptRecordOf, type AttemptRecord, type AttemptValues } from '../attempt-records.js';
import { byJob } from '../by-job.js';
import { emptyFacts, FACTS_COLUMNS, factsRowsOf, RECORDED_OUTPUT_COLUMNS, recordedOutputsOf, type FactsRead, type FactsValues, type FactsWanted, type OutputValues, type RecordedOutput } from '../facts-rows.js';
import { anyPlaces, outlinePlaces, placesOf, placesWanted, placesWantedOfKeys } from '../facts-places.js';
import { hookRunOf, hookRunsByJob, type RawHookRun } from '../hook-run-rows.js';
import { ITEM_COLUMNS, itemOf, type ItemValues } from '../item-rows.js';
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
 * and money are read (the caller may hold them already, read at a run's end), or a part of them
 * (facts-rows.ts FactsPart). Raw rows, one at a time, as the store reads job states: no 10,000
 * arrays are held at once. The rows' places only when they say something (facts-places.ts).
 */
export function readFactsAt(dbPath: string, manifest: string, planJobs: PlanJobs, wanted: FactsWanted): FactsRead | undefined {
  const db = openStateDbCurrent(dbPath);
  if (!db) return undefined;
  try {
    if (wanted.part) return 'outline' in wanted.part ? readOutline(db, manifest, planJobs, wanted.money) : readWindow(db, manifest, wanted.part.keys);
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

/** An outline (FactsPart): the rows' keys alone say whether their places are read (they are not, for a finished run's plan). */
function readOutline(db: Database.Database, manifest: string, planJobs: PlanJobs, money: boolean): FactsRead {
  const scope = planScope(planJobs);
  const places = placesWantedOfKeys(db.prepare('SELECT key FROM jobs WHERE manifest = ?').pluck().iterate(manifest) as Iterable<string>, scope);
  const finish = db.prepare("SELECT * FROM hook_runs WHERE manifest = ? AND hook = 'on_finish' ORDER BY id DESC LIMIT 1").get(manifest) as RawHookRun | undefined;
  return {
    ...emptyFacts(), ...outlinePlaces(anyPlaces(places) ? readPlaces(db, manifest) : [], places, scope, planJobs),
    money: money ? readMoney(db, manifest, scope) : null, lastFinish: finish ? hookRunOf(finish) : null,
  };
}

/**
 * One connection for every window's read (FactsPart `keys`), opened at the first and closed by
 * `close`. Why: the plan's keys are hashes, so a window of jobs finds its rows all over the
 * key indexes, and a connection opened for each window read those pages again from the file each
 * time — at 100,000 jobs in windows of 2,000, 50 times over (~80 ms a window, against ~25 ms on
 * a connection whose cache holds them). Between reads it holds no transaction: a run writing meanwhile is not held up.
 * Since a reader's cache is 2 MB (open-db.ts), it no longer holds all of them; the whole report
 * measured no slower for it.
 */
export class WindowConnection {
  private db: Database.Database | undefined | null;

  constructor(private readonly path: string) {}

  read(manifest: string, keys: readonly string[]): FactsRead | undefined {
    // null: there was no database at the first read (a window read does not make one appear).
    if (this.db === undefined) this.db = openStateDbCurrent(this.path) ?? null;
    return this.db ? readWindow(this.db, manifest, keys) : undefined;
  }

  close(): void {
    this.db?.close();
    this.db = undefined;
  }
}

/** The jobs `keys` names, a JSON array of them, through each table's (manifest, job) index. */
const IN_KEYS = 'IN (SELECT value FROM json_each(?))';

/** A window (FactsPart): each table read for `keys` alone, a job's lists in the order the whole read gives them. */
function readWindow(db: Database.Database, manifest: string, keys: readonly string[]): FactsRead {
  const list = JSON.stringify(keys);
  const values = <V>(sql: string) => db.prepare(sql).raw().iterate(manifest, list) as Iterable<V>;
  // Items (HTML ads) and hooks are rare: their tables are asked first whether the manifest has any at all.
  const any = (sql: string) => db.prepare(`SELECT 1 FROM ${sql} LIMIT 1`).get(manifest) !== undefined;
  return {
    ...emptyFacts(),
    rows: factsRowsOf(values<FactsValues>(`SELECT ${FACTS_COLUMNS} FROM jobs WHERE manifest = ? AND key ${IN_KEYS}`)),
    // `+path`: not through outputs_by_path (manifest, path), which SQLite may take for `path IS NOT NULL` and then read every file of the manifest for each window.
    outputs: recordedOutputsOf(values<OutputValues>(`SELECT ${RECORDED_OUTPUT_COLUMNS} FROM outputs
      WHERE manifest = ? AND job_key ${IN_KEYS} AND +path IS NOT NULL AND sha256 IS NOT NULL ORDER BY job_key, idx`)),
    items: any('job_items WHERE manifest = ?')
      ? byJob(values<ItemValues>(`SELECT ${ITEM_COLUMNS} FROM job_items WHERE manifest = ? AND job_key ${IN_KEYS} ORDER BY job_key, idx`), (v) => [v[0], itemOf(v)])
      : new Map(),
    // Not `ORDER BY a.id`: the window's attempts sorted in a temporary b-tree were a fifth of the
    // read (0.4 s of a 100,000-job report); each job's few are put oldest first after.
    attempts: oldestFirst(byJob(values<AttemptValues>(`SELECT ${ATTEMPT_RECORD_COLUMNS} FROM attempts a LEFT JOIN charges c ON c.attempt_id = a.id
      WHERE a.manifest = ? AND a.job_key ${IN_KEYS}`), (v) => [v[0], attemptRecordOf(v)])),
    hooks: any("hook_runs WHERE manifest = ? AND hook = 'on_output'")
      ? hookRunsByJob(db.prepare(`SELECT * FROM hook_runs WHERE id IN (SELECT max(id) FROM hook_runs
        WHERE manifest = ? AND hook = 'on_output' AND job_key ${IN_KEYS} GROUP BY job_key, output_idx) ORDER BY job_key, output_idx`).iterate(manifest, list) as Iterable<RawHookRun>)
      : new Map(),
  };
}

/** Each job's attempts oldest first (by id), once read in no promised order. */
function oldestFirst(byJob: Map<string, AttemptRecord[]>): Map<string, AttemptRecord[]> {
  for (const attempts of byJob.values()) if (attempts.length > 1) attempts.sort((a, b) => a.id - b.id);
  return byJob;
}
