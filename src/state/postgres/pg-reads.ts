import type { StepKind } from '../../step-kinds.js';
import { byJob } from '../by-job.js';
import { ITEM_COLUMNS, itemOf, type ItemValues, type JobItemRow } from '../item-rows.js';
import type { PlannedRecord } from '../job-change.js';
import type { AttemptRow, JobRow, JobState, OutputRow } from '../job-row.js';
import { PAST_PLANNED, type JobStatus } from '../job-status.js';
import type { MoneySums } from '../money-sums.js';
import type { StateIdentity } from '../outputs-owner.js';
import { planScope, type PlanJobs } from '../plan-scope.js';
import { JOB_ROWS, lastReadOf, OUTPUT_COLUMNS, STATE_COLUMNS, outputFromValues, stateFromValues, toAttempt, toJobRow, type RawJobRow } from '../sqlite/job-row.js';
import type { PgDb } from './pg-connection.js';
import { readPgMoney } from './pg-money.js';
import { readPgIdentity } from './pg-reads-jobs.js';
import { shownLocation } from './pg-url.js';

/**
 * The Store's reads on PostgreSQL: each one statement of committed state, outside any
 * transaction, taking no lock (a run's writes go on meanwhile). Rows are mapped by the same
 * mappers as SQLite's (sqlite/job-row.ts, item-rows.ts) and money summed by money-sums.ts, so both
 * stores answer alike. Text is ordered byte-wise (COLLATE "C"), as SQLite orders it.
 */
export class PgReads {
  constructor(
    private readonly db: PgDb,
    private readonly manifest: () => string,
  ) {}

  async job(key: string): Promise<JobRow | undefined> {
    const [raw] = await this.db.query<RawJobRow>(`${JOB_ROWS} WHERE manifest = $1 AND key = $2`, [this.manifest(), key]);
    return raw && toJobRow(raw);
  }

  /** Jobs by key, in the order given; unknown keys are skipped (one statement, however many keys). */
  /** The jobs of `keys` as planned (syncPlan's records), in the order given: one statement. */
  async plannedJobs(keys: readonly string[]): Promise<PlannedRecord[]> {
    if (keys.length === 0) return [];
    const rows = await this.db.query<PlannedRecord & { output_name: string | null; record: string | null }>(
      'SELECT key, step, kind, output_name, priority::float8 AS priority, plan_job AS record FROM jobs WHERE manifest = $1 AND key = ANY($2::text[])',
      [this.manifest(), keys],
    );
    const byKey = new Map(rows.map((row) => [row.key, row]));
    return keys.flatMap((key) => {
      const row = byKey.get(key);
      return row && row.record !== null ? [{ key, step: row.step, kind: row.kind, outputName: row.output_name, priority: Number(row.priority), record: row.record }] : [];
    });
  }

  async jobs(keys: readonly string[]): Promise<JobRow[]> {
    if (keys.length === 0) return [];
    const raws = await this.db.query<RawJobRow>(`${JOB_ROWS} WHERE manifest = $1 AND key = ANY($2::text[])`, [this.manifest(), keys]);
    const byKey = new Map(raws.map((raw) => [raw.key, raw]));
    return keys.flatMap((key) => {
      const raw = byKey.get(key);
      return raw ? [toJobRow(raw)] : [];
    });
  }

  /** The job, with the outputs recorded for its files (their links among them), in their places' order: one statement. */
  async jobWithOutputs(key: string): Promise<{ row: JobRow; outputs: OutputRow[] } | undefined> {
    const [raw] = await this.db.query<RawJobRow & { outputs: unknown[][] | null }>(
      `SELECT jobs.*, ${lastReadOf('jobs')} AS last_read,
         (SELECT json_agg(json_build_array(${OUTPUT_COLUMNS}) ORDER BY idx) FROM outputs o WHERE o.manifest = jobs.manifest AND o.job_key = jobs.key) AS outputs
       FROM jobs WHERE manifest = $1 AND key = $2`,
      [this.manifest(), key],
    );
    return raw && { row: toJobRow(raw), outputs: (raw.outputs ?? []).map(outputFromValues) };
  }

  /**
   * Store.jobStatePage: through the (manifest, key) key, from the key after `after` (the index's own
   * order, so the pages meet). `recorded`: the first page asks the (manifest, status) index first
   * whether any job is past planned.
   */
  async jobStatePage(after: string | null, limit: number, recorded = false): Promise<JobState[]> {
    if (recorded && after === null) {
      const [any] = await this.db.values(`SELECT 1 FROM jobs WHERE manifest = $1 AND status IN (${PAST_PLANNED}) LIMIT 1`, [this.manifest()]);
      if (any === undefined) return [];
    }
    const past = recorded ? ` AND status <> 'planned'` : '';
    return after === null ? this.states(`${past} ORDER BY key LIMIT $2`, [limit]) : this.states(`${past} AND key > $2 ORDER BY key LIMIT $3`, [after, limit]);
  }

  /** The manifest's job states, with a further condition on the rows (its parameters from $2). */
  private async states(where: string, params: readonly unknown[] = []): Promise<JobState[]> {
    const manifest = this.manifest();
    const rows = await this.db.values(`SELECT ${STATE_COLUMNS} FROM jobs WHERE manifest = $1${where}`, [manifest, ...params]);
    return rows.map((values) => stateFromValues(values, manifest));
  }

  async jobsWithStatus(statuses: readonly JobStatus[]): Promise<JobRow[]> {
    const raws = await this.db.query<RawJobRow>(`${JOB_ROWS} WHERE manifest = $1 AND status = ANY($2::text[]) ORDER BY key COLLATE "C"`, [this.manifest(), statuses]);
    return raws.map(toJobRow);
  }

  /** The keys of jobs in doubt whose last attempt a webhook delivery named. */
  async inDoubtNamedByDelivery(): Promise<string[]> {
    const rows = await this.db.query<{ key: string }>(
      `SELECT key FROM jobs j WHERE manifest = $1 AND status = 'in_doubt'
         AND (SELECT delivered_id FROM attempts a WHERE a.manifest = j.manifest AND a.job_key = j.key ORDER BY id DESC LIMIT 1) IS NOT NULL
       ORDER BY key COLLATE "C"`,
      [this.manifest()],
    );
    return rows.map((row) => row.key);
  }

  async lastAttempt(key: string): Promise<AttemptRow | undefined> {
    const [raw] = await this.db.query('SELECT * FROM attempts WHERE manifest = $1 AND job_key = $2 ORDER BY id DESC LIMIT 1', [this.manifest(), key]);
    return raw && toAttempt(raw);
  }

  async attempts(key: string): Promise<AttemptRow[]> {
    return (await this.db.query('SELECT * FROM attempts WHERE manifest = $1 AND job_key = $2 ORDER BY id', [this.manifest(), key])).map(toAttempt);
  }

  async attemptByHookToken(token: string): Promise<AttemptRow | undefined> {
    const [raw] = await this.db.query('SELECT * FROM attempts WHERE hook_token = $1 AND manifest = $2', [token, this.manifest()]);
    return raw && toAttempt(raw);
  }

  async outputs(key: string): Promise<OutputRow[]> {
    const rows = await this.db.values<unknown[]>(`SELECT ${OUTPUT_COLUMNS} FROM outputs WHERE manifest = $1 AND job_key = $2 ORDER BY idx`, [this.manifest(), key]);
    return rows.map(outputFromValues);
  }

  async outputsOf(keys: readonly string[]): Promise<Map<string, OutputRow[]>> {
    const rows = await this.db.values<unknown[]>(`SELECT ${OUTPUT_COLUMNS} FROM outputs WHERE manifest = $1 AND job_key = ANY($2::text[]) ORDER BY job_key COLLATE "C", idx`, [this.manifest(), keys]);
    return byJob(rows.map(outputFromValues), (output) => [output.jobKey, output]);
  }

  async outputsAtPath(path: string): Promise<{ jobKey: string; idx: number }[]> {
    return this.db.query<{ jobKey: string; idx: number }>('SELECT job_key AS "jobKey", idx FROM outputs WHERE manifest = $1 AND path = $2', [this.manifest(), path]);
  }

  /** Every path a recorded file of the manifest is at. */
  async recordedPaths(): Promise<string[]> {
    const rows = await this.db.query<{ path: string }>('SELECT path FROM outputs WHERE manifest = $1 AND path IS NOT NULL', [this.manifest()]);
    return rows.map((row) => row.path);
  }

  async items(key: string): Promise<JobItemRow[]> {
    const rows = await this.db.values<ItemValues>(`SELECT ${ITEM_COLUMNS} FROM job_items WHERE manifest = $1 AND job_key = $2 ORDER BY idx`, [this.manifest(), key]);
    return rows.map(itemOf);
  }

  async allItems(): Promise<Map<string, JobItemRow[]>> {
    const rows = await this.db.values<ItemValues>(`SELECT ${ITEM_COLUMNS} FROM job_items WHERE manifest = $1 ORDER BY job_key COLLATE "C", idx`, [this.manifest()]);
    return byJob(rows.map(itemOf), (item) => [item.jobKey, item]);
  }

  async money(jobs: PlanJobs): Promise<MoneySums> {
    return readPgMoney(this.db, this.manifest(), planScope(jobs));
  }

  /** How many times run `runId` retried the job automatically (counted from its attempts). */
  async retriesInRun(key: string, runId: number): Promise<number> {
    const [row] = await this.db.query<{ n: number }>('SELECT count(*) AS n FROM attempts WHERE manifest = $1 AND job_key = $2 AND retried_in_run = $3', [this.manifest(), key, runId]);
    return row?.n ?? 0;
  }

  /** Which of `ids` (of `kind`) any job or attempt ever recorded: never adopted again (sqlite/job-store.ts remoteIdKnown). */
  async remoteIdsKnown(kind: StepKind, ids: readonly string[]): Promise<Set<string>> {
    const rows = await this.db.query<{ id: string }>(
      `SELECT r.id FROM unnest($2::text[]) AS r(id)
       WHERE EXISTS (SELECT 1 FROM jobs WHERE kind = $1 AND remote_id = r.id)
          OR EXISTS (SELECT 1 FROM attempts a JOIN jobs j ON j.manifest = a.manifest AND j.key = a.job_key WHERE j.kind = $1 AND a.remote_id = r.id)`,
      [kind, ids],
    );
    return new Set(rows.map((row) => row.id));
  }

  /** The job (of any manifest) that owns `remoteId`, but for attempt `exceptAttempt`'s delivery. */
  async remoteIdOwner(remoteId: string, exceptAttempt: number | null): Promise<{ manifest: string; key: string } | undefined> {
    const [owner] = await this.db.query<{ manifest: string; key: string }>(
      `SELECT manifest, key FROM jobs WHERE remote_id = $1
       UNION ALL SELECT manifest, job_key AS key FROM attempts WHERE (remote_id = $1 OR delivered_id = $1) AND id IS DISTINCT FROM $2::bigint
       LIMIT 1`,
      [remoteId, exceptAttempt],
    );
    return owner;
  }

  /** The identity the database was made with, when, and how many jobs of the manifest it knows; the location shown without a password. */
  async identity(location: string): Promise<StateIdentity> {
    return readPgIdentity(this.db, shownLocation(location), this.manifest());
  }
}
