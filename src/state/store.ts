import type Database from 'better-sqlite3';
import type { StepKind } from '../step-kinds.js';
import { StateError } from '../errors.js';
import type { Clock } from '../util/clock.js';
import { systemClock } from '../util/clock.js';
import { appendEvent, type EventType } from './events.js';
import type { AttemptRow, AttemptState, JobRow, OutputRow, RawJobRow } from './job-row.js';
import { toJobRow } from './job-row.js';
import { assertTransition, type JobStatus } from './job-status.js';
import { openStateDb } from './open-db.js';

/** A job of the plan, as the store first records it. */
export interface NewJob {
  key: string;
  step: string;
  kind: StepKind;
  outputName?: string | null;
  request: Record<string, unknown>;
  pathId?: string | null;
  creditsEstimated: number | null;
}

/** Columns a status change may set alongside the status. */
export interface JobChange {
  remoteId?: string | null;
  remoteStatus?: string | null;
  result?: Record<string, unknown> | null;
  creditsUsed?: number | null;
  creditsPrior?: number;
  creditsReserved?: number;
  failedReason?: string | null;
  /** Set on entering in_doubt; cleared by `transition` on leaving it. */
  doubtReason?: string | null;
  request?: Record<string, unknown>;
  pathId?: string | null;
  submittedAt?: number | null;
  finishedAt?: number | null;
}

const CHANGE_COLUMNS: Record<keyof JobChange, string> = {
  remoteId: 'remote_id',
  remoteStatus: 'remote_status',
  result: 'result',
  creditsUsed: 'credits_used',
  creditsPrior: 'credits_prior',
  creditsReserved: 'credits_reserved',
  failedReason: 'failed_reason',
  doubtReason: 'doubt_reason',
  request: 'request',
  pathId: 'path_id',
  submittedAt: 'submitted_at',
  finishedAt: 'finished_at',
};

/**
 * The runner's only door to SQLite. Every status change goes through `transition`, which checks
 * the move against the machine in job-status.ts and appends an event in the same transaction.
 */
export class StateStore {
  readonly db: Database.Database;
  readonly clock: Clock;
  runId: number | null = null;
  private scope: string | null = null;

  constructor(db: Database.Database, clock: Clock = systemClock) {
    this.db = db;
    this.clock = clock;
  }

  static open(path: string, clock: Clock = systemClock): StateStore {
    return new StateStore(openStateDb(path), clock);
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  /**
   * Runs `fn` in one IMMEDIATE transaction with `synchronous=FULL`, so the commit is on disk
   * before this returns. Policy: used for the intent row and the remote id, the two writes that
   * decide whether a job is paid for twice; everything else settles for WAL's NORMAL.
   */
  durably<T>(fn: () => T): T {
    this.db.pragma('synchronous = FULL');
    try {
      return this.db.transaction(fn).immediate();
    } finally {
      this.db.pragma('synchronous = NORMAL');
    }
  }

  /** Runs `fn` in one IMMEDIATE transaction. */
  atomically<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  /**
   * Chooses the manifest whose jobs this store reads and writes: a job is identified by
   * (manifest, key), so two manifests with an identical job each own their row. `syncPlan`
   * chooses it too.
   */
  useManifest(manifest: string): this {
    this.scope = manifest;
    return this;
  }

  /** The manifest chosen by useManifest / syncPlan. */
  get manifest(): string {
    if (this.scope === null) throw new StateError('no manifest chosen: call useManifest or syncPlan first');
    return this.scope;
  }

  event(type: EventType, jobKey: string | null, data?: Record<string, unknown>): void {
    appendEvent(this.db, this.clock.now(), type, { runId: this.runId, jobKey, manifest: this.scope }, data);
  }

  startRun(manifest: string, host: string, pid: number, maxCredits: number | null): number {
    const info = this.db
      .prepare('INSERT INTO runs (manifest, host, pid, started_at, max_credits) VALUES (?, ?, ?, ?, ?)')
      .run(manifest, host, pid, this.clock.now(), maxCredits);
    this.runId = Number(info.lastInsertRowid);
    this.event('run:started', null, { manifest, host, pid, maxCredits });
    return this.runId;
  }

  finishRun(outcome: string, summary: Record<string, unknown>): void {
    if (this.runId === null) return;
    this.db.prepare('UPDATE runs SET finished_at = ?, outcome = ? WHERE id = ?').run(this.clock.now(), outcome, this.runId);
    this.event('run:finished', null, { outcome, ...summary });
  }

  /**
   * Records the plan's jobs: a new key is inserted as `planned`; a known key keeps its status
   * and history (a finished job stays finished), only its estimate is refreshed while planned.
   */
  syncPlan(manifest: string, jobs: readonly NewJob[]): { added: number; known: number } {
    this.useManifest(manifest);
    const now = this.clock.now();
    const insert = this.db.prepare(
      `INSERT INTO jobs (key, manifest, step, kind, output_name, request, path_id, status, credits_estimated,
         created_at, updated_at)
       VALUES (@key, @manifest, @step, @kind, @outputName, @request, @pathId, 'planned', @credits, @now, @now)
       ON CONFLICT (manifest, key) DO UPDATE SET credits_estimated = excluded.credits_estimated,
         request = CASE WHEN status = 'planned' THEN excluded.request ELSE request END
       WHERE status = 'planned'`,
    );
    const known = new Set(this.jobKeys(jobs.map((j) => j.key)));
    this.atomically(() => {
      for (const job of jobs) {
        insert.run({
          key: job.key,
          manifest,
          step: job.step,
          kind: job.kind,
          outputName: job.outputName ?? null,
          request: JSON.stringify(job.request),
          pathId: job.pathId ?? null,
          credits: job.creditsEstimated,
          now,
        });
      }
      this.event('plan:synced', null, { manifest, jobs: jobs.length, added: jobs.length - known.size });
    });
    return { added: jobs.length - known.size, known: known.size };
  }

  private jobKeys(keys: readonly string[]): string[] {
    const found: string[] = [];
    const select = this.db.prepare('SELECT key FROM jobs WHERE manifest = ? AND key = ?').pluck();
    for (const key of keys) if (select.get(this.manifest, key) !== undefined) found.push(key);
    return found;
  }

  job(key: string): JobRow | undefined {
    const raw = this.db.prepare('SELECT * FROM jobs WHERE manifest = ? AND key = ?').get(this.manifest, key) as RawJobRow | undefined;
    return raw && toJobRow(raw);
  }

  /** Jobs by key, in the order given; unknown keys are skipped. */
  jobs(keys: readonly string[]): JobRow[] {
    const select = this.db.prepare('SELECT * FROM jobs WHERE manifest = ? AND key = ?');
    return keys.flatMap((key) => {
      const raw = select.get(this.manifest, key) as RawJobRow | undefined;
      return raw ? [toJobRow(raw)] : [];
    });
  }

  jobsWithStatus(statuses: readonly JobStatus[]): JobRow[] {
    const marks = statuses.map(() => '?').join(', ');
    const raws = this.db.prepare(`SELECT * FROM jobs WHERE manifest = ? AND status IN (${marks}) ORDER BY key`).all(this.manifest, ...statuses);
    return (raws as RawJobRow[]).map(toJobRow);
  }

  /**
   * Plans a failed or rejected job again (`reelpipe retry`). What its failed attempt was counted
   * as costing moves to credits_prior (which the ledger counts as spent), so the money history
   * stays whole while the job gets a fresh remote id. Policy: a failed job with no reported cost
   * was counted at its kept reservation (see BudgetLedger.settle), so that is what moves; the
   * reservation itself is zeroed, or it would be counted twice.
   */
  planAgain(key: string): JobRow {
    const job = this.job(key);
    if (!job) throw new Error(`unknown job ${key}`);
    const counted = job.creditsUsed ?? (job.status === 'failed' ? job.creditsReserved : 0);
    return this.transition(key, 'planned', {
      creditsPrior: job.creditsPrior + counted,
      creditsReserved: 0,
      creditsUsed: null,
      remoteId: null,
      remoteStatus: null,
      result: null,
      failedReason: null,
      finishedAt: null,
    }, 'job:retry', { previous: job.status, remoteId: job.remoteId, failedReason: job.failedReason });
  }

  /**
   * Whether `remoteId` (of `kind`) was ever recorded for any job: a job's current id, or one of
   * its attempts' (a retried job's old, failed remote job keeps its id there). Reconciliation
   * must never adopt such a job: it belongs to another row, or to an earlier life of this one.
   */
  remoteIdKnown(kind: StepKind, remoteId: string): boolean {
    const hit = this.db
      .prepare(
        `SELECT 1 FROM jobs WHERE kind = @kind AND remote_id = @id
         UNION ALL
         SELECT 1 FROM attempts a JOIN jobs j ON j.manifest = a.manifest AND j.key = a.job_key
           WHERE j.kind = @kind AND a.remote_id = @id
         LIMIT 1`,
      )
      .get({ kind, id: remoteId });
    return hit !== undefined;
  }

  /** The job whose creation answered with `remoteId`, if any: one remote job belongs to one row. */
  jobByRemoteId(kind: StepKind, remoteId: string): JobRow | undefined {
    const raw = this.db.prepare('SELECT * FROM jobs WHERE kind = ? AND remote_id = ?').get(kind, remoteId);
    return raw === undefined ? undefined : toJobRow(raw as RawJobRow);
  }

  /**
   * Moves a job to `to`, setting `change` alongside, and logs `type`. Must be called inside a
   * transaction by the caller when several rows change together; on its own it is atomic.
   */
  transition(key: string, to: JobStatus, change: JobChange, type: EventType, data?: Record<string, unknown>): JobRow {
    return this.atomicallyNested(() => {
      const current = this.job(key);
      if (!current) throw new Error(`unknown job ${key}`);
      assertTransition(key, current.status, to);
      // A job out of doubt has no reason to be in doubt: the reason never outlives the status.
      if (to !== 'in_doubt' && current.doubtReason !== null) change = { ...change, doubtReason: null };
      const sets = ['status = @status', 'updated_at = @now'];
      const params: Record<string, unknown> = { key, manifest: this.manifest, status: to, now: this.clock.now() };
      for (const [field, column] of Object.entries(CHANGE_COLUMNS) as [keyof JobChange, string][]) {
        if (change[field] === undefined) continue;
        const value = change[field];
        sets.push(`${column} = @${field}`);
        params[field] = value !== null && typeof value === 'object' ? JSON.stringify(value) : value;
      }
      this.db.prepare(`UPDATE jobs SET ${sets.join(', ')} WHERE manifest = @manifest AND key = @key`).run(params);
      this.event(type, key, { from: current.status, to, ...data });
      return { ...current, ...stripUndefined(change), status: to } as JobRow;
    });
  }

  private atomicallyNested<T>(fn: () => T): T {
    return this.db.inTransaction ? fn() : this.atomically(fn);
  }

  /** Opens an attempt: the intent row, committed (durably, by the caller) before the POST. */
  insertAttempt(key: string, request: Record<string, unknown>): number {
    const info = this.db
      .prepare('INSERT INTO attempts (manifest, job_key, run_id, state, request, intent_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(this.manifest, key, this.runId, 'intent', JSON.stringify(request), this.clock.now());
    this.db.prepare('UPDATE jobs SET attempt_count = attempt_count + 1 WHERE manifest = ? AND key = ?').run(this.manifest, key);
    return Number(info.lastInsertRowid);
  }

  closeAttempt(id: number, state: AttemptState, detail: { remoteId?: string; error?: string } = {}): void {
    this.db
      .prepare('UPDATE attempts SET state = ?, answered_at = ?, remote_id = ?, error = ? WHERE id = ?')
      .run(state, this.clock.now(), detail.remoteId ?? null, detail.error ?? null, id);
  }

  /** The newest attempt of a job. */
  lastAttempt(key: string): AttemptRow | undefined {
    const raw = this.db.prepare('SELECT * FROM attempts WHERE manifest = ? AND job_key = ? ORDER BY id DESC LIMIT 1').get(this.manifest, key) as
      | Record<string, unknown>
      | undefined;
    return raw && toAttempt(raw);
  }

  attempts(key: string): AttemptRow[] {
    const raws = this.db.prepare('SELECT * FROM attempts WHERE manifest = ? AND job_key = ? ORDER BY id').all(this.manifest, key);
    return (raws as Record<string, unknown>[]).map(toAttempt);
  }

  /**
   * Replaces the list of a job's output URLs. An unchanged URL keeps what was downloaded from it;
   * a changed URL forgets the old file's path and checksum (it may name another file), so the
   * output is fetched again and never taken as done on the old record.
   */
  setOutputs(key: string, urls: readonly string[]): void {
    const manifest = this.manifest;
    this.atomicallyNested(() => {
      const keep = this.db.prepare('SELECT idx, url FROM outputs WHERE manifest = ? AND job_key = ?').all(manifest, key) as { idx: number; url: string }[];
      const upsert = this.db.prepare(
        `INSERT INTO outputs (manifest, job_key, idx, url) VALUES (?, ?, ?, ?)
         ON CONFLICT (manifest, job_key, idx) DO UPDATE SET url = excluded.url,
           path = CASE WHEN url = excluded.url THEN path END,
           bytes = CASE WHEN url = excluded.url THEN bytes END,
           sha256 = CASE WHEN url = excluded.url THEN sha256 END,
           content_type = CASE WHEN url = excluded.url THEN content_type END,
           downloaded_at = CASE WHEN url = excluded.url THEN downloaded_at END`,
      );
      urls.forEach((url, idx) => upsert.run(manifest, key, idx, url));
      const drop = this.db.prepare('DELETE FROM outputs WHERE manifest = ? AND job_key = ? AND idx = ?');
      for (const row of keep) if (row.idx >= urls.length) drop.run(manifest, key, row.idx);
    });
  }

  recordDownload(key: string, idx: number, file: { path: string; bytes: number; sha256: string; contentType: string }): void {
    this.db
      .prepare(
        `UPDATE outputs SET path = ?, bytes = ?, sha256 = ?, content_type = ?, downloaded_at = ?
         WHERE manifest = ? AND job_key = ? AND idx = ?`,
      )
      .run(file.path, file.bytes, file.sha256, file.contentType, this.clock.now(), this.manifest, key, idx);
  }

  outputs(key: string): OutputRow[] {
    const raws = this.db
      .prepare('SELECT * FROM outputs WHERE manifest = ? AND job_key = ? ORDER BY idx')
      .all(this.manifest, key) as Record<string, unknown>[];
    return raws.map((r) => ({
      jobKey: r.job_key as string,
      idx: r.idx as number,
      url: r.url as string,
      path: r.path as string | null,
      bytes: r.bytes as number | null,
      sha256: r.sha256 as string | null,
      contentType: r.content_type as string | null,
      downloadedAt: r.downloaded_at as number | null,
    }));
  }
}

function toAttempt(raw: Record<string, unknown>): AttemptRow {
  return {
    id: raw.id as number,
    jobKey: raw.job_key as string,
    runId: raw.run_id as number | null,
    state: raw.state as AttemptState,
    request: JSON.parse(raw.request as string) as Record<string, unknown>,
    intentAt: raw.intent_at as number,
    answeredAt: raw.answered_at as number | null,
    remoteId: raw.remote_id as string | null,
    error: raw.error as string | null,
  };
}

function stripUndefined(change: JobChange): Partial<JobRow> {
  return Object.fromEntries(Object.entries(change).filter(([, v]) => v !== undefined)) as Partial<JobRow>;
}
