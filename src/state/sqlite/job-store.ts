import type { PlanJobs } from '../plan-scope.js';
import type Database from 'better-sqlite3';
import type { StepKind } from '../../step-kinds.js';
import type { Clock } from '../../util/clock.js';
import { systemClock } from '../../util/clock.js';
import type { EventType } from './events.js';
import type { AttemptRow, AttemptState, JobRow, RawJobRow } from './job-row.js';
import { JOB_ROWS, lastReadOf, STATE_COLUMNS, stateFromValues, toAttempt, toJobRow, type JobState } from './job-row.js';
import { PAST_PLANNED, type JobStatus } from '../job-status.js';
import { openStateDb } from './open-db.js';
import { statement } from './statements.js';
import { identityOf } from './state-identity.js';
import type { StateIdentity } from '../outputs-owner.js';
import { WriteBatch } from './write-batch.js';
import { StoreCore } from './store-core.js';
import { CHANGE_COLUMNS, type JobChange, type NewJob } from './job-change.js';
import { feedOf, type PlanFeed, type PlannedRecord } from '../job-change.js';
import { syncPlan } from './sync-plan.js';
import { Charges } from './charges.js';
import { readItems, readItemsByJob, writeItems, type JobItemRow } from './job-items.js';
import { planScope, readMoney, type MoneySums } from './money.js';
import { endAttempt, markRetried, retriesInRun } from './attempt-history.js';
import { madeStatus, moveEffects, planAgainMove } from '../job-moves.js';

export type { JobChange, NewJob } from './job-change.js';

/** What a move of a job starts from: its status, and why it is in doubt (if it is). */
export interface MoveStart {
  status: JobStatus;
  doubtReason: string | null;
}

/**
 * The runner's only door to SQLite. Every status change goes through `transition`, which checks
 * the move against the machine in job-status.ts and appends an event in the same transaction.
 * The connection, transactions, scope, events and output records are StoreCore's (store-core.ts).
 */
export class StateStore extends StoreCore {
  private readonly batch: WriteBatch;
  /** The money's own ledger: every change to it rides on a move of a job or an attempt (charges.ts). */
  readonly charges: Charges;

  constructor(db: Database.Database, clock: Clock = systemClock) {
    super(db, clock);
    this.charges = new Charges(db, () => this.manifest, () => this.clock.now());
    this.batch = new WriteBatch(db, (fn) => this.immediately(fn), (fn) => this.transact(fn));
  }

  static open(path: string, clock: Clock = systemClock): StateStore {
    return new StateStore(openStateDb(path), clock);
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  /**
   * The manifest's money over every charge it ever had, each of `jobs` (the plan) with its own
   * figure: what the run's budget ledger starts from (state/sqlite/money.ts).
   */
  money(jobs: PlanJobs): MoneySums {
    return readMoney(this.db, this.manifest, planScope(jobs));
  }

  /** The items a job makes (an HTML ad per style), in their places' order; none for other kinds. */
  items(key: string): JobItemRow[] {
    return readItems(this.db, this.manifest, key);
  }

  /** The items of every job of the manifest that has some. */
  allItems(): Map<string, JobItemRow[]> {
    return readItemsByJob(this.db, this.manifest);
  }

  /** Records what a remote job made of the items it was asked for (state/sqlite/job-items.ts). */
  recordItems(key: string, items: readonly Omit<JobItemRow, 'jobKey'>[]): void {
    writeItems(this.db, this.manifest, key, items, this.clock.now());
  }

  /**
   * The status a job's downloaded files leave it in: `partly_failed` while some item it was to
   * make has failed, else `downloaded`.
   */
  madeStatus(key: string): 'downloaded' | 'partly_failed' {
    const failed = statement(this.db, "SELECT 1 FROM job_items WHERE manifest = ? AND job_key = ? AND state = 'failed' LIMIT 1").get(this.manifest, key);
    return madeStatus(failed !== undefined);
  }

  /** This database's identity (made with it), when it was made, and how many jobs of the manifest it knows. */
  identity(path: string): StateIdentity {
    return identityOf(this.db, path, this.manifest);
  }

  /**
   * Like `durably` (or `atomically` with durable: false), but committed together with the other
   * writes queued in the same turn of the event loop (see write-batch.ts): resolves once committed.
   */
  soon<T>(fn: () => T, options: { durable: boolean } = { durable: true }): Promise<T> {
    return this.batch.add(fn, options.durable);
  }

  /** Resolves once the writes queued so far have committed (write-batch.ts). */
  settled(): Promise<void> {
    return this.batch.settled();
  }

  /** Which transaction of the group commit a queued write runs in (they count up). */
  get transactionSerial(): number {
    return this.batch.serial;
  }

  /** `from`: the manifest file the run was started from (its real path), when known. */
  startRun(manifest: string, host: string, pid: number, maxCredits: number | null, from: string | null = null): number {
    const info = statement(this.db, 'INSERT INTO runs (manifest, host, pid, started_at, max_credits, manifest_path) VALUES (?, ?, ?, ?, ?, ?)')
      .run(manifest, host, pid, this.clock.now(), maxCredits, from);
    this.runId = Number(info.lastInsertRowid);
    this.event('run:started', null, { manifest, host, pid, maxCredits, ...(from === null ? {} : { from }) });
    return this.runId;
  }

  /** `refusal`: why its start was refused, before any job moved (see run/refusals.ts); null for a run that started. */
  finishRun(outcome: string, summary: Record<string, unknown>, refusal: string | null = null): void {
    if (this.runId === null) return;
    statement(this.db, 'UPDATE runs SET finished_at = ?, outcome = ?, refusal = ? WHERE id = ?').run(this.clock.now(), outcome, refusal, this.runId);
    this.event('run:finished', null, { outcome, ...summary });
  }

  /**
   * Records the plan's jobs: a new key is inserted as `planned`; a known key keeps its status
   * and history (a finished job stays finished), only its estimate, request and priority are
   * refreshed while planned, and its record as planned whenever that changed (sync-plan.ts).
   */
  syncPlan(manifest: string, given: readonly NewJob[] | PlanFeed): { added: number; known: number } {
    this.useManifest(manifest);
    return syncPlan(this, manifest, feedOf(given));
  }

  /** The job's status and why it is in doubt (undefined for an unknown key): what a guard and a move read first. */
  moveStart(key: string): MoveStart | undefined {
    return statement(this.db, 'SELECT status, doubt_reason AS doubtReason FROM jobs WHERE manifest = ? AND key = ?').get(this.manifest, key) as MoveStart | undefined;
  }

  job(key: string): JobRow | undefined {
    const raw = statement(this.db, `${JOB_ROWS} WHERE manifest = ? AND key = ?`).get(this.manifest, key) as RawJobRow | undefined;
    return raw && toJobRow(raw);
  }

  /**
   * Jobs by key, in the order given; unknown keys are skipped. Many keys are read in one scan of
   * the manifest's rows (one query, not one per key: a re-run reads every job at once).
   */
  /** The jobs of `keys` as planned (syncPlan's records), in the order given: a lookup a key (a claimed window's). */
  plannedJobs(keys: readonly string[]): PlannedRecord[] {
    const select = statement(this.db, 'SELECT key, step, kind, output_name AS outputName, priority, plan_job AS record FROM jobs WHERE manifest = ? AND key = ?');
    return keys.flatMap((key) => {
      const row = select.get(this.manifest, key) as PlannedRecord | { record: null } | undefined;
      return row && row.record !== null ? [row as PlannedRecord] : [];
    });
  }

  jobs(keys: readonly string[]): JobRow[] {
    if (keys.length > 32) {
      const rows = new Map<string, RawJobRow>();
      for (const raw of statement(this.db, `${JOB_ROWS} WHERE manifest = ?`).iterate(this.manifest) as Iterable<RawJobRow>) rows.set(raw.key, raw);
      return keys.flatMap((key) => {
        const raw = rows.get(key);
        return raw ? [toJobRow(raw)] : [];
      });
    }
    const select = statement(this.db, `${JOB_ROWS} WHERE manifest = ? AND key = ?`);
    return keys.flatMap((key) => {
      const raw = select.get(this.manifest, key) as RawJobRow | undefined;
      return raw ? [toJobRow(raw)] : [];
    });
  }

  /**
   * Store.jobStatePage: through the (manifest, key) index, from the key after `after`. `recorded`:
   * the first page asks the (manifest, status) index first whether any job is past planned.
   */
  jobStatePage(after: string | null, limit: number, recorded = false): JobState[] {
    if (recorded && after === null && statement(this.db, `SELECT 1 FROM jobs WHERE manifest = ? AND status IN (${PAST_PLANNED}) LIMIT 1`).get(this.manifest) === undefined) return [];
    const past = recorded ? ` AND status <> 'planned'` : '';
    return after === null ? this.states(`${past} ORDER BY key LIMIT ?`, [limit]) : this.states(`${past} AND key > ? ORDER BY key LIMIT ?`, [after, limit]);
  }

  /** The manifest's job states, with a further condition on the rows (and its parameters). */
  private states(where: string, params: readonly unknown[]): JobState[] {
    const manifest = this.manifest;
    const states: JobState[] = [];
    // Row by row (iterate), not all() then map: each row's array dies as it is read, where 10,000
    // held at once were copied by the young-generation collections (a fifth faster at 10,000 jobs).
    const select = statement(this.db, `SELECT ${STATE_COLUMNS} FROM jobs WHERE manifest = ?${where}`, { raw: true });
    for (const values of select.iterate(manifest, ...params) as Iterable<unknown[]>) states.push(stateFromValues(values, manifest));
    return states;
  }

  /**
   * The manifest's jobs of these statuses, by key. Why `ORDER BY +key`: with `key` itself SQLite
   * chose the (manifest, key) index for the order and read every job of the manifest to find the
   * few of a status (every run's start looks for `submitting` ones: 0.2–0.7 s at 100,000 jobs);
   * `+key` leaves it the (manifest, status) index, and a sort of what it finds.
   */
  jobsWithStatus(statuses: readonly JobStatus[]): JobRow[] {
    const marks = statuses.map(() => '?').join(', ');
    const raws = statement(this.db, `${JOB_ROWS} WHERE manifest = ? AND status IN (${marks}) ORDER BY +key`).all(this.manifest, ...statuses);
    return (raws as RawJobRow[]).map(toJobRow);
  }

  /** Plans a failed or rejected job again (`reelpipe retry`): what it counts as spent, and why, is job-moves.ts planAgainMove's. */
  planAgain(key: string, data: Record<string, unknown> = {}): JobRow {
    const job = this.job(key);
    if (!job) throw new Error(`unknown job ${key}`);
    const again = planAgainMove(job, data);
    if (again.lapse) this.charges.lapse(key, 'retried');
    return this.transition(key, 'planned', again.change, 'job:retry', again.data);
  }

  /**
   * Plans a job the service failed (or partly failed) in this run again, automatically
   * (`retries`): planAgain's accounting, and its last attempt marked as retried by this run, which
   * is what retriesInRun counts. A run without a row (the runner used as a library) counts as run 0.
   */
  retryInRun(key: string, data: Record<string, unknown> = {}): JobRow {
    return this.atomicallyNested(() => {
      markRetried(this.db, this.manifest, key, this.runId ?? 0);
      return this.planAgain(key, { automatic: true, ...data });
    });
  }

  /** How many times this run retried the job automatically (counted from its attempts). */
  retriesInRun(key: string): number {
    return retriesInRun(this.db, this.manifest, key, this.runId ?? 0);
  }

  /**
   * Whether `remoteId` (of `kind`) was ever recorded for any job: a job's current id, or one of
   * its attempts' (a retried job's old, failed remote job keeps its id there). Reconciliation
   * must never adopt such a job: it belongs to another row, or to an earlier life of this one.
   */
  remoteIdKnown(kind: StepKind, remoteId: string): boolean {
    const hit = statement(this.db, 
        `SELECT 1 FROM jobs WHERE kind = @kind AND remote_id = @id
         UNION ALL
         SELECT 1 FROM attempts a JOIN jobs j ON j.manifest = a.manifest AND j.key = a.job_key
           WHERE j.kind = @kind AND a.remote_id = @id
         LIMIT 1`,
      )
      .get({ kind, id: remoteId });
    return hit !== undefined;
  }

  /**
   * The job (of any manifest and kind) that owns `remoteId` — its current id, or one its
   * attempts were answered with or named by a delivery — for a message naming it; undefined when
   * nobody does. `exceptAttempt`: the attempt asking, whose own delivery does not count.
   */
  remoteIdOwner(remoteId: string, exceptAttempt: number | null = null): { manifest: string; key: string } | undefined {
    return statement(this.db, 
        `SELECT manifest, key FROM jobs WHERE remote_id = @id
         UNION ALL SELECT manifest, job_key AS key FROM attempts
           WHERE (remote_id = @id OR delivered_id = @id) AND id IS NOT @except
         LIMIT 1`,
      )
      .get({ id: remoteId, except: exceptAttempt }) as { manifest: string; key: string } | undefined;
  }

  /** The job whose creation answered with `remoteId`, if any: one remote job belongs to one row. */
  jobByRemoteId(kind: StepKind, remoteId: string): JobRow | undefined {
    const raw = statement(this.db, `${JOB_ROWS} WHERE kind = ? AND remote_id = ?`).get(kind, remoteId);
    return raw === undefined ? undefined : toJobRow(raw as RawJobRow);
  }

  /**
   * Moves a job to `to`, setting `change` alongside, and logs `type`. Must be called inside a
   * transaction by the caller when several rows change together; on its own it is atomic.
   */
  transition(key: string, to: JobStatus, change: JobChange, type: EventType, data?: Record<string, unknown>, read?: MoveStart): JobRow {
    return this.atomicallyNested(() => {
      // `read`: the caller's read of it in this same transaction (a guard's), not made twice.
      const current = read ?? this.moveStart(key);
      if (!current) throw new Error(`unknown job ${key}`);
      // The machine of job-status.ts, and what else the move writes (job-moves.ts).
      const effects = moveEffects(key, current.status, to, change, current.doubtReason);
      change = effects.change;
      const sets = ['status = @status', 'updated_at = @now'];
      const params: Record<string, unknown> = { key, manifest: this.manifest, status: to, now: this.clock.now() };
      for (const [field, column] of Object.entries(CHANGE_COLUMNS) as [keyof typeof CHANGE_COLUMNS, string][]) {
        if (change[field] === undefined) continue;
        const value = change[field];
        sets.push(`${column} = @${field}`);
        params[field] = value !== null && typeof value === 'object' ? JSON.stringify(value) : value;
      }
      if (change.result !== undefined) {
        this.keepResult(key, change.result);
        sets.push('result = NULL');
      }
      const raw = statement(this.db, `UPDATE jobs SET ${sets.join(', ')} WHERE manifest = @manifest AND key = @key RETURNING *, ${lastReadOf('jobs')} AS last_read`)
        .get(params) as RawJobRow;
      this.charges.onMove(key, { reserved: change.creditsReserved, remoteId: change.remoteId, settle: effects.settle });
      // Its attempt keeps how its remote job ended, and why: the row keeps only the last attempt's.
      if (effects.ended) endAttempt(this.db, this.manifest, key, effects.ended, change.failedReason ?? null);
      this.event(type, key, { from: current.status, to, ...data });
      return toJobRow(raw);
    });
  }

  /** A job's last read, kept in job_results (see migration 13; the caller empties the old jobs.result); null removes it. */
  private keepResult(key: string, result: Record<string, unknown> | null): void {
    if (result === null) statement(this.db, 'DELETE FROM job_results WHERE manifest = ? AND job_key = ?').run(this.manifest, key);
    else {
      statement(this.db, 'INSERT INTO job_results (manifest, job_key, result) VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET result = excluded.result')
        .run(this.manifest, key, JSON.stringify(result));
    }
  }

  /**
   * Opens an attempt: the intent row, committed (durably, by the caller) before the POST.
   * `hookToken`: the token of the attempt's own webhook address, when the run listens.
   */
  insertAttempt(key: string, request: Record<string, unknown>, hookToken: string | null = null): number {
    const info = statement(this.db, 'INSERT INTO attempts (manifest, job_key, run_id, state, request, intent_at, hook_token) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(this.manifest, key, this.runId, 'intent', JSON.stringify(request), this.clock.now(), hookToken);
    statement(this.db, 'UPDATE jobs SET attempt_count = attempt_count + 1 WHERE manifest = ? AND key = ?').run(this.manifest, key);
    const id = Number(info.lastInsertRowid);
    this.charges.open(key, id, this.runId);
    return id;
  }

  closeAttempt(id: number, state: AttemptState, detail: { remoteId?: string; error?: string } = {}): void {
    statement(this.db, 'UPDATE attempts SET state = ?, answered_at = ?, remote_id = ?, error = ? WHERE id = ?')
      .run(state, this.clock.now(), detail.remoteId ?? null, detail.error ?? null, id);
    this.charges.closed(id, state, detail.remoteId);
  }

  /** The newest attempt of a job. */
  lastAttempt(key: string): AttemptRow | undefined {
    const raw = statement(this.db, 'SELECT * FROM attempts WHERE manifest = ? AND job_key = ? ORDER BY id DESC LIMIT 1').get(this.manifest, key) as
      | Record<string, unknown>
      | undefined;
    return raw && toAttempt(raw);
  }

  /** The attempt (of this manifest) whose webhook address carries `token`. */
  attemptByHookToken(token: string): AttemptRow | undefined {
    const raw = statement(this.db, 'SELECT * FROM attempts WHERE hook_token = ? AND manifest = ?').get(token, this.manifest) as Record<string, unknown> | undefined;
    return raw && toAttempt(raw);
  }

  /** A creation answer seen but not recorded: its remote id kept on the job's newest attempt while it has none and the job is sent-or-not (Store.observeAnswer). */
  keepObserved(key: string, attemptId: number, remoteId: string): boolean {
    return statement(this.db, `UPDATE attempts SET delivered_id = @remoteId WHERE id = @attemptId AND manifest = @manifest AND job_key = @key AND remote_id IS NULL AND delivered_id IS NULL
      AND id = (SELECT max(id) FROM attempts WHERE manifest = @manifest AND job_key = @key)
      AND EXISTS (SELECT 1 FROM jobs WHERE manifest = @manifest AND key = @key AND status IN ('submitting', 'in_doubt'))`)
      .run({ remoteId, attemptId, manifest: this.manifest, key }).changes > 0;
  }

  /** Records the remote id a webhook delivery named for an attempt (the first one named wins). */
  noteDelivery(attemptId: number, remoteId: string): void {
    statement(this.db, 'UPDATE attempts SET delivered_id = ? WHERE id = ? AND delivered_id IS NULL').run(remoteId, attemptId);
  }

  attempts(key: string): AttemptRow[] {
    const raws = statement(this.db, 'SELECT * FROM attempts WHERE manifest = ? AND job_key = ? ORDER BY id').all(this.manifest, key);
    return (raws as Record<string, unknown>[]).map(toAttempt);
  }

}

