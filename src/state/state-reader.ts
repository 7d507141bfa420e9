import type { MemberRow } from './member-rows.js';
import type { PlanJobs } from './plan-scope.js';
import type { Clock } from '../util/clock.js';
import type { AttemptRow, JobRow } from './job-row.js';
import type { StateIdentity } from './outputs-owner.js';
import type { FactsRead, FactsWanted } from './facts-rows.js';
import type { HookRunRow } from './sqlite/hook-runs.js';
import type { CachedCatalogue } from './sqlite/catalogue-cache.js';
import type { RecordedJobMoney } from './sqlite/job-money.js';
import type { RefusedStart } from './sqlite/refused-start.js';
import type { RunListRow, RunRecord } from './sqlite/run-reads.js';
import type { RunWork } from './sqlite/run-work.js';
import { isPostgresAddress } from './postgres/pg-url.js';
import { sqliteReader } from './sqlite/sqlite-reader.js';


/**
 * What adoptIdentity did with the rows an older reelpipe keyed by a manifest's real path:
 *   - `adopted: null` — none of them map to this identity: nothing was written;
 *   - `adopted` — the rows of `path` are the identity's now (its runs remember they ran from it);
 *   - `refused: 'paths'` — two paths or more map to this identity, each with rows of its own:
 *     which is which only a `project:` can tell; nothing was written;
 *   - `refused: 'jobs'` — the identity already has rows, and some of its jobs are also jobs of
 *     `path` (`keys`, a few of them): two manifests' records of one job; nothing was written.
 *     `identityPath`: where the identity last ran from, when its runs say;
 *   - `refused: 'locked'` — a run keyed by `path` holds its lock and is beating (an older reelpipe
 *     still running): re-keying its rows under it would lose its writes; nothing was written.
 */
export type Adoption =
  | { adopted: null }
  | { adopted: { path: string; jobs: number; runs: number } }
  | { refused: 'paths'; paths: string[] }
  | { refused: 'jobs'; path: string; keys: string[]; identityPath: string | null }
  | { refused: 'locked'; path: string; host: string; pid: number };

/**
 * The state as the commands that only look at it see it (`status`, the report, `runs`, `logs`,
 * `doubt`, `plan`, and a run's checks before it starts): each read is of committed state, takes
 * no lock, works while a run is going, and finds a missing state empty. Async like the Store, so
 * a state behind a server fits the same door. The SQLite reader opens the file read-only for each
 * read (migrated first when an older reelpipe left it) and closes it.
 *
 * Three writes live here too, for the moments before a run's Store is open: a catalogue read from
 * the service (kept for the commands that work offline), a start refused before it began, and the
 * re-keying of a manifest's rows from its path to its identity (adoptIdentity).
 */
export interface StateReader {
  /** Where the state is, as the commands say it. */
  readonly location: string;
  /**
   * Every job's facts, files, items and attempts; `wanted`: whether its rows and the money are
   * read too (the caller may hold them, read at a run's end). Undefined without a state.
   */
  facts(manifest: string, planJobs: PlanJobs, wanted: FactsWanted): Promise<FactsRead | undefined>;
  /**
   * Lets go of what the reader kept between the reads of a part of the facts by keys (FactsPart):
   * SQLite's keeps its connection from the first such read to this, PostgreSQL's pool is kept anyway.
   */
  release(): Promise<void>;
  /** The newest `limit` runs of `manifest`, newest first; refused starts only with `all` (counted apart). */
  runs(manifest: string, limit: number, all: boolean): Promise<{ rows: RunListRow[]; runs: number; refused: number }>;
  /**
   * One run (default: the newest that started); undefined without a state, null without runs.
   * `credits`: whether its charges are summed (`charged`); false when the caller summed every
   * run's already (MoneySums.runs, from the same charges). @default true
   */
  run(manifest: string, runId?: number, credits?: boolean): Promise<RunRecord | null | undefined>;
  /** The newest run and the newest that changed a job. */
  lastWork(manifest: string): Promise<{ newest: RunWork | null; worked: RunWork | null }>;
  /** The members of the manifest's newest run (member-rows.ts): one on SQLite, every host's on a shared state. */
  members(manifest: string): Promise<MemberRow[]>;
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
  /**
   * Re-keys to `identity` (`project/name`) the rows an older reelpipe kept under a manifest's real
   * path — every table's `manifest`, the run lock's name — in one transaction, paying nothing
   * again: what the first command that loads the manifest does (run/adopt-identity.ts). The paths
   * considered: `path` (where the manifest was read from this time), and every other path-keyed
   * manifest of the state that `identityOf` maps to `identity` (asked before the transaction,
   * never inside it; it answers undefined for a key it cannot map). Nothing is written unless
   * rows are re-keyed; a state that does not exist is not created. See Adoption for the answers.
   */
  adoptIdentity(identity: string, path: string, identityOf: (key: string) => Promise<string | undefined>, clock: Clock): Promise<Adoption>;
}

/** The reader of the state at `location`: a PostgreSQL address (as locate.ts carries it) or an SQLite file's path. */
export function stateAt(location: string): StateReader {
  return isPostgresAddress(location) ? pgReaderOnUse(location) : sqliteReader(location);
}

/**
 * The PostgreSQL reader, its module (and the PostgreSQL client, ~90 ms to load) loaded at the
 * first read: a command on an SQLite state never loads it, and `stateAt` stays synchronous.
 */
function pgReaderOnUse(location: string): StateReader {
  let reader: Promise<StateReader> | undefined;
  const loaded = () => (reader ??= import('./postgres/pg-reader.js').then((m) => m.pgReader(location)));
  return new Proxy({ location } as StateReader, {
    get(target, name) {
      if (name === 'location') return target.location;
      if (name === 'then') return undefined;
      return async (...args: unknown[]) => {
        const real = (await loaded()) as unknown as Record<string | symbol, (...a: unknown[]) => Promise<unknown>>;
        return real[name]!(...args);
      };
    },
  });
}
