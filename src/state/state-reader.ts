import type { Clock } from '../util/clock.js';
import type { AttemptRow, JobRow } from './job-row.js';
import type { StateIdentity } from './outputs-owner.js';
import type { FactsRead } from './sqlite/facts-reads.js';
import type { HookRunRow } from './sqlite/hook-runs.js';
import type { CachedCatalogue } from './sqlite/catalogue-cache.js';
import type { RecordedJobMoney } from './sqlite/job-money.js';
import type { RefusedStart } from './sqlite/refused-start.js';
import type { RunListRow, RunRecord } from './sqlite/run-reads.js';
import type { RunWork } from './sqlite/run-work.js';
import { sqliteReader } from './sqlite/sqlite-reader.js';

type PlanJobs = readonly { key: string; step: string; outputName: string | null }[];

/**
 * The state as the commands that only look at it see it (`status`, the report, `runs`, `logs`,
 * `doubt`, `plan`, and a run's checks before it starts): each read is of committed state, takes
 * no lock, works while a run is going, and finds a missing state empty. Async like the Store, so
 * a state behind a server fits the same door. The SQLite reader opens the file read-only for each
 * read (migrated first when an older reelpipe left it) and closes it.
 *
 * Two writes live here too, for the moments before a run's Store is open: a catalogue read from
 * the service (kept for the commands that work offline), and a start refused before it began.
 */
export interface StateReader {
  /** Where the state is, as the commands say it. */
  readonly location: string;
  /** Every job's facts, files, items, attempts and money; `readRows`: whether its rows are wanted too. Undefined without a state. */
  facts(manifest: string, planJobs: PlanJobs, readRows: boolean): Promise<FactsRead | undefined>;
  /** The newest `limit` runs of `manifest`, newest first; refused starts only with `all` (counted apart). */
  runs(manifest: string, limit: number, all: boolean): Promise<{ rows: RunListRow[]; runs: number; refused: number }>;
  /** One run (default: the newest that started); undefined without a state, null without runs. */
  run(manifest: string, runId?: number): Promise<RunRecord | null | undefined>;
  /** The newest run and the newest that changed a job. */
  lastWork(manifest: string): Promise<{ newest: RunWork | null; worked: RunWork | null }>;
  hookRuns(manifest: string): Promise<{ byJob: Map<string, HookRunRow[]>; lastFinish: HookRunRow | null }>;
  /** The jobs in doubt, each with its last attempt. */
  inDoubt(manifest: string): Promise<{ row: JobRow; attempt: AttemptRow | undefined }[]>;
  /** The state's identity and how many jobs of `manifest` it knows. */
  identity(manifest: string): Promise<StateIdentity>;
  jobStatuses(manifest: string): Promise<Map<string, string>>;
  jobMoney(manifest: string, planJobs: PlanJobs): Promise<RecordedJobMoney>;
  /** The requests of the jobs an edited row replaced, by the key of the job that replaced them. */
  earlierRequests(manifest: string, planJobs: PlanJobs): Promise<Map<string, { key: string; request: Record<string, unknown> }>>;
  cachedCatalogue(service: string, name: string): Promise<CachedCatalogue | undefined>;
  /** The items (styles) each `all` request was expanded to when its jobs were first planned. */
  plannedItems(manifest: string): Promise<Map<string, string[][]>>;
  /** Keeps a catalogue read from the service, creating the state if needed. */
  cacheCatalogue(service: string, name: string, body: unknown, at: number): Promise<void>;
  /** Records a start refused before it began, when the state exists (refused-start.ts says why only then). */
  recordRefusedStart(start: RefusedStart, clock: Clock): Promise<boolean>;
}

/** The reader of the state at `location` (today an SQLite file's path). */
export function stateAt(location: string): StateReader {
  return sqliteReader(location);
}
