import type Database from 'better-sqlite3';
import { StateMismatchError } from '../../errors.js';
import { SCHEMA_V1_TO_V13 } from './schema-v1-v13.js';

/** One schema change: applied once, in order, inside a transaction, and recorded by version. */
export interface Migration {
  version: number;
  name: string;
  /** The change in SQLite's dialect. */
  sql: string;
  /**
   * The same change in PostgreSQL's dialect: every migration after the PostgreSQL baseline
   * (postgres/pg-schema.ts, equal to SQLite's version 18) carries both texts, so the two schemas
   * never drift apart.
   */
  postgres?: string;
  /**
   * The database is rewritten compactly (VACUUM) once the migration is applied, outside its
   * transaction: for a migration that empties most of a table's pages without freeing them.
   */
  compactAfter?: boolean;
}

/**
 * Every schema change ever made, oldest first. Never edit a shipped migration: append a new one.
 * Times are epoch milliseconds; credits are REAL (Aurora and Boreal-H3 prices have tenths).
 */
export const MIGRATIONS: readonly Migration[] = [
  ...SCHEMA_V1_TO_V13,
  {
    version: 14,
    name: 'charges, job_items: one record per remote job (what it cost, what came back, why it no longer counts), each item of a job',
    // Why a table of its own: a job's row held only its current attempt's cost (and a sum of its
    // earlier ones), and `forget` deleted it, so spend vanished from every figure: an edited row's
    // old job, a forgotten job, the runs (a killed run's share was unknowable). A charge is never
    // deleted; every total is a sum over charges (state/sqlite/money.ts). No foreign key to jobs: it
    // outlives the job's row. Rows made before this migration are carried over from the jobs
    // (their current attempt, their earlier attempts' sum) and from job:forgotten events.
    // job_items: the items a job makes (an HTML ad per style), each with its own end, reason,
    // URL and refund, kept across the job's attempts (a retry resends only the failed ones).
    sql: `
      CREATE TABLE charges (
        id INTEGER PRIMARY KEY,
        manifest TEXT NOT NULL,
        job_key TEXT NOT NULL,
        step TEXT NOT NULL,
        kind TEXT NOT NULL,
        output_name TEXT,
        attempt_id INTEGER,
        run_id INTEGER,
        remote_id TEXT,
        state TEXT NOT NULL,
        reserved REAL NOT NULL DEFAULT 0,
        charged REAL,
        refunded REAL NOT NULL DEFAULT 0,
        refund_derived INTEGER NOT NULL DEFAULT 0,
        lapsed TEXT,
        lapsed_at INTEGER,
        created_at INTEGER NOT NULL,
        settled_at INTEGER
      );
      CREATE UNIQUE INDEX charges_by_attempt ON charges (attempt_id) WHERE attempt_id IS NOT NULL;
      CREATE INDEX charges_by_job ON charges (manifest, job_key);
      CREATE INDEX charges_by_run ON charges (run_id);
      INSERT INTO charges (manifest, job_key, step, kind, output_name, attempt_id, run_id, remote_id, state, reserved, charged, lapsed, created_at, settled_at)
        SELECT j.manifest, j.key, j.step, j.kind, j.output_name, NULL,
          (SELECT min(run_id) FROM attempts a WHERE a.manifest = j.manifest AND a.job_key = j.key), NULL,
          'settled', 0, j.credits_prior, 'retried', j.created_at, j.updated_at
        FROM jobs j WHERE j.credits_prior > 0;
      INSERT INTO charges (manifest, job_key, step, kind, output_name, attempt_id, run_id, remote_id, state, reserved, charged, created_at, settled_at)
        SELECT j.manifest, j.key, j.step, j.kind, j.output_name, a.id, a.run_id, j.remote_id,
          CASE WHEN j.status IN ('submitting', 'in_doubt', 'submitted', 'running') THEN 'open' ELSE 'settled' END,
          j.credits_reserved,
          CASE WHEN j.status IN ('submitting', 'in_doubt', 'submitted', 'running') THEN NULL ELSE j.credits_used END,
          a.intent_at,
          CASE WHEN j.status IN ('submitting', 'in_doubt', 'submitted', 'running') THEN NULL ELSE j.updated_at END
        FROM jobs j JOIN attempts a ON a.id = (SELECT max(id) FROM attempts x WHERE x.manifest = j.manifest AND x.job_key = j.key)
        WHERE j.status <> 'planned';
      INSERT INTO charges (manifest, job_key, step, kind, run_id, state, charged, lapsed, lapsed_at, created_at, settled_at)
        SELECT manifest, job_key, coalesce(json_extract(data, '$.step'), ''), coalesce(json_extract(data, '$.kind'), ''), NULL, 'settled',
          coalesce(json_extract(data, '$.creditsUsed'), 0) + coalesce(json_extract(data, '$.creditsPrior'), 0), 'forgotten', at, at, at
        FROM events WHERE type = 'job:forgotten'
          AND coalesce(json_extract(data, '$.creditsUsed'), 0) + coalesce(json_extract(data, '$.creditsPrior'), 0) > 0;
      CREATE TABLE job_items (
        manifest TEXT NOT NULL,
        job_key TEXT NOT NULL,
        idx INTEGER NOT NULL,
        item TEXT NOT NULL,
        state TEXT NOT NULL,
        failed_reason TEXT,
        attempt_id INTEGER,
        remote_id TEXT,
        url TEXT,
        refunded REAL NOT NULL DEFAULT 0,
        refund_derived INTEGER NOT NULL DEFAULT 0,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (manifest, job_key, idx)
      );
      CREATE INDEX outputs_by_path ON outputs (manifest, path) WHERE path IS NOT NULL;
    `,
  },
  {
    version: 15,
    name: 'runs.refusal: a start refused before any job moved, with the first line of why',
    // Why: cron starts a manifest whether or not it can run, and a start turned away (another run
    // holds the lock, credentials missing, input that does not validate, a style the service
    // dropped) either left no trace or looked like a run that ended. Marked, `reelpipe runs` can
    // hide them (a manifest refused every ten minutes would push its real runs off the list) and
    // `runs --all` show them with their outcome and why. Null for a run that started.
    sql: `ALTER TABLE runs ADD COLUMN refusal TEXT;`,
  },
  {
    version: 16,
    name: 'catalogues: the service\'s lists as last read (styles…); jobs.planned_items: the items a job was first planned with',
    // Why: the service's catalogues are its truth (the spec lists no style ids), so reelpipe keeps
    // no list of its own; every read of one (`reelpipe catalogue`, a run) is kept here, by service
    // address and name, so offline commands check against the last one read, naming its date.
    // planned_items: the styles `style_ids: all` expanded to when the job was first planned: a
    // later catalogue never changes a sent job (its key), only adds jobs for styles added since.
    // JSON {from, items}: `from` is the key of the `all` request the job was expanded from.
    sql: `
      CREATE TABLE catalogues (
        service TEXT NOT NULL,
        name TEXT NOT NULL,
        fetched_at INTEGER NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (service, name)
      );
      ALTER TABLE jobs ADD COLUMN planned_items TEXT;
    `,
  },
  {
    version: 17,
    name: 'jobs.priority; attempts.ended, ended_reason, retried_in_run: how each attempt\'s remote job ended, and the run that retried it',
    // Why: a step's `priority` orders the ready jobs (run/ready-order.ts), and is kept on the job's
    // row so that whatever later picks jobs from the database (claims across hosts, a streamed
    // plan) orders them the same way. `retries` resubmits a job the service failed within a run: a
    // job then has several attempts, each with its own remote job, end, reason and charge, and
    // the job's row holds only the last; the attempt keeps its own (state/sqlite/attempt-history.ts).
    // `retried_in_run` counts a run's automatic retries of a job from the state, not from memory.
    sql: `
      ALTER TABLE jobs ADD COLUMN priority INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE attempts ADD COLUMN ended TEXT;
      ALTER TABLE attempts ADD COLUMN ended_reason TEXT;
      ALTER TABLE attempts ADD COLUMN retried_in_run INTEGER;
    `,
  },
  {
    version: 18,
    name: 'jobs.plan_order, claim_run: a job\'s place in its plan, and the run that claimed it',
    // Why: the runner asks the store for ready jobs (Store.claim) rather than ordering the plan in
    // memory, so that whatever later claims jobs — several hosts sharing one run, a streamed plan —
    // takes them in the one ready order (run/ready-order.ts) and never twice within a run.
    sql: `
      ALTER TABLE jobs ADD COLUMN plan_order INTEGER;
      ALTER TABLE jobs ADD COLUMN claim_run INTEGER;
    `,
  },
  {
    version: 19,
    name: 'runs.manifest_path: the file a run was started from; runs_by_manifest',
    // Why: a manifest is known by its identity (`project/name`, manifest/identity.ts), not by its
    // file's path, so one manifest runs from several checkouts and hosts; each run keeps the path
    // it ran from (beside its host), and a run from another path than the last says so. Null for
    // a run recorded before, until its rows are re-keyed from the path they were kept under
    // (state/sqlite/adopt-identity.ts fills it then). The index: a manifest's runs, newest first,
    // without reading every run of every manifest (and the manifests a state holds, listed).
    sql: `
      ALTER TABLE runs ADD COLUMN manifest_path TEXT;
      CREATE INDEX runs_by_manifest ON runs (manifest, id);
    `,
    postgres: `
      ALTER TABLE runs ADD COLUMN manifest_path TEXT;
      CREATE INDEX runs_by_manifest ON runs (manifest, id);
    `,
  },
  {
    version: 20,
    name: 'account: the limits every manifest of the state shares; charges.slot_freed_at; locks.lease_ms; charges_open, charges_by_time',
    // Why: several manifests (teams, brands) share one service account, whose render slots and
    // credits are finite (state/account-rules.ts). The limits are one row; what counts against them
    // is read from the charges, the money's own ledger, so nothing is counted twice or drifts: a
    // slot is an open charge (an intent whose remote job has not ended), the spend is the charges'
    // sum. `slot_freed_at`: a job in doubt for longer than its kind could still be rendering gives
    // its slot back (said once, by an event). `cooldown_until`: a 429 one run met holds every run
    // on the account until then (the database's clock). `locks.lease_ms`: the holder's lease, so a
    // run breaks a lock only once the holder's own lease (not only the breaker's) has passed —
    // the holder sends nothing past it (lock/acquire-lock.ts). The indexes: the open charges and a period's charges
    // of every manifest, read at each intent under a limit.
    sql: `
      CREATE TABLE account (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        concurrency INTEGER,
        max_credits REAL,
        per TEXT,
        rate REAL,
        updated_at INTEGER NOT NULL,
        cooldown_until INTEGER
      );
      ALTER TABLE charges ADD COLUMN slot_freed_at INTEGER;
      ALTER TABLE locks ADD COLUMN lease_ms INTEGER;
      CREATE INDEX charges_open ON charges (created_at) WHERE state = 'open';
      CREATE INDEX charges_by_time ON charges (created_at);
    `,
    postgres: `
      CREATE TABLE account (
        id BIGINT PRIMARY KEY CHECK (id = 1),
        concurrency BIGINT,
        max_credits DOUBLE PRECISION,
        per TEXT,
        rate DOUBLE PRECISION,
        updated_at BIGINT NOT NULL,
        cooldown_until BIGINT
      );
      ALTER TABLE charges ADD COLUMN slot_freed_at BIGINT;
      ALTER TABLE locks ADD COLUMN lease_ms BIGINT;
      CREATE INDEX charges_open ON charges (created_at) WHERE state = 'open';
      CREATE INDEX charges_by_time ON charges (created_at);
    `,
  },
  {
    version: 21,
    name: 'runs.joined, runs.terms; locks.member_of, locks.idle_at: several processes (hosts) sharing one run of a manifest',
    // Why: on PostgreSQL a second `reelpipe run` of a manifest whose lock a live run holds joins
    // that run instead of exiting 75 (run/members.ts). The first run holds the manifest's lock; each
    // member that joins holds a lock of its own (`member_of` names the manifest), its lease and
    // heartbeat the run lock's, so a member's jobs are fenced by its own lock and taken over when its
    // lease lapses. `idle_at`: the member has nothing left to drive (the run ends when no member
    // is busy). `runs.joined`: the run (the first member's id) a member joined; `runs.terms`: what
    // every member must run alike (the plan's jobs, --step, caps, --retries). SQLite never joins
    // (one process), but keeps the same columns so a state copies both ways.
    sql: `
      ALTER TABLE runs ADD COLUMN joined INTEGER;
      ALTER TABLE runs ADD COLUMN terms TEXT;
      ALTER TABLE locks ADD COLUMN member_of TEXT;
      ALTER TABLE locks ADD COLUMN idle_at INTEGER;
      CREATE INDEX locks_members ON locks (member_of) WHERE member_of IS NOT NULL;
    `,
    postgres: `
      ALTER TABLE runs ADD COLUMN joined BIGINT;
      ALTER TABLE runs ADD COLUMN terms TEXT;
      ALTER TABLE locks ADD COLUMN member_of TEXT;
      ALTER TABLE locks ADD COLUMN idle_at BIGINT;
      CREATE INDEX locks_members ON locks (member_of) WHERE member_of IS NOT NULL;
    `,
  },
  {
    version: 22,
    name: 'events_by_run holds the manifest: the jobs a run named are read from the index alone',
    // Why: a run's events may name a job of another manifest (an account's slot given back by
    // the run that gated it), so the jobs a run changed are read with its manifest; the old index
    // (run_id, job_key) sent each of them to the table to check it — 0.27 s at 100,000 jobs for
    // the report, against 0.05 s from an index that holds the manifest. Same number of indexes.
    sql: `
      DROP INDEX events_by_run;
      CREATE INDEX events_by_run ON events (run_id, manifest, job_key);
    `,
    postgres: `
      DROP INDEX events_by_run;
      CREATE INDEX events_by_run ON events (run_id, manifest, job_key);
    `,
  },
  {
    version: 23,
    name: "events' indexes in the order events are written: a run's in id order, the run-level ones apart",
    // Why: a run writes about four events a job, and each went into two indexes at a random place
    // (by job key): a third of the pages a 2,000-job run wrote to the WAL were those two indexes'
    // leaves, each commit rewriting several. In id order within a run, a commit's events share
    // the index's last leaf: a quarter fewer pages written (10,000 jobs at speed 400, medians of
    // six: 2.44 → 2.37 ms of CPU a job, 24.0 → 22.6 s). `job_key` stays last, so the jobs a run
    // changed are still read from the index alone, now de-duplicated by a sort (0.04 → 0.2 s at
    // 100,000 jobs: once a report).
    // events_by_job (manifest, job_key) served no read by job; the reads by manifest alone are of
    // run-level events (no job key: a run's end), which the small partial index serves.
    sql: `
      DROP INDEX events_by_run;
      DROP INDEX events_by_job;
      CREATE INDEX events_by_run ON events (run_id, manifest, id, job_key);
      CREATE INDEX events_of_runs ON events (manifest, run_id) WHERE job_key IS NULL;
    `,
    postgres: `
      DROP INDEX events_by_run;
      DROP INDEX events_by_job;
      CREATE INDEX events_by_run ON events (run_id, manifest, id, job_key);
      CREATE INDEX events_of_runs ON events (manifest, run_id) WHERE job_key IS NULL;
    `,
  },
  {
    version: 24,
    name: 'jobs.in_plan and jobs_ready: a claim reads a window of its plan in the ready order, not every job left',
    // Why: a claim was told its scope as the keys of every job the run had left (up to 100,000 on
    // every claim, sent to PostgreSQL as one array) and sorted every claimable job of the manifest
    // to hand out a window: 60 ms a claim on SQLite and 370 ms on PostgreSQL at 100,000 jobs, a
    // member of a shared run claiming 128 at a time nearly 800 times. The plan a run records
    // (syncPlan) now marks its jobs (in_plan: 1 in the plan last recorded, 0 for the manifest's
    // others), and jobs_ready holds the claimable ones of it in the one ready order
    // (run/ready-order.ts), so a claim walks the index from its start and stops at its window.
    // Jobs leave the index as they finish, so what it walks past is what is claimed and in flight.
    // An existing state's jobs are in no plan until the next run records its own.
    sql: `
      ALTER TABLE jobs ADD COLUMN in_plan INTEGER NOT NULL DEFAULT 0;
      CREATE INDEX jobs_ready ON jobs (manifest, status = 'planned', CASE WHEN status = 'planned' THEN -priority ELSE 0 END, plan_order, key)
        WHERE in_plan = 1 AND status IN ('planned', 'submitting', 'submitted', 'running', 'in_doubt', 'done');
    `,
    postgres: `
      ALTER TABLE jobs ADD COLUMN in_plan INTEGER NOT NULL DEFAULT 0;
      CREATE INDEX jobs_ready ON jobs (manifest, (status = 'planned'), (CASE WHEN status = 'planned' THEN -priority ELSE 0 END), plan_order NULLS FIRST, key COLLATE "C")
        WHERE in_plan = 1 AND status IN ('planned', 'submitting', 'submitted', 'running', 'in_doubt', 'done');
    `,
  },
  {
    version: 25,
    name: 'jobs.plan_job: each job as planned, so a run reads the jobs it drives from the state',
    // Why: a run held every job of its plan as an object for its whole length (about 1 kB a job,
    // issue 24); now it records each job as planned (its request before any reference is
    // resolved, its references, estimate, label, origin, row and matrix) and reads back the window
    // it claims. plan_digest: the record is written again only when it changed (a finished
    // manifest run again rewrites no row). Rows recorded before get theirs at the next run's plan.
    sql: `
      ALTER TABLE jobs ADD COLUMN plan_job TEXT;
      ALTER TABLE jobs ADD COLUMN plan_digest TEXT;
    `,
    postgres: `
      ALTER TABLE jobs ADD COLUMN plan_job TEXT;
      ALTER TABLE jobs ADD COLUMN plan_digest TEXT;
    `,
  },
];

/**
 * A database a newer reelpipe wrote (its schema above `newest`): this one must not read or migrate
 * it. Exit 2 (StateMismatchError): the wrong version for this database is configuration.
 */
export function newerSchemaError(what: string, current: number, newest: number, more = ''): StateMismatchError {
  return new StateMismatchError(
    `${what} is at schema version ${current}, written by a newer reelpipe (this one knows up to ${newest}): run that version, or upgrade this one${more}`,
  );
}

/** The newest schema this build knows. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;

/**
 * Brings the database up to SCHEMA_VERSION. A database newer than this build is refused rather
 * than guessed at: an older reelpipe must not corrupt newer state.
 *
 * Why one IMMEDIATE transaction for all of it (reading the version included): several processes
 * may open one new database at once (cron starting runs of several manifests). Each takes the
 * write lock before it reads the version, so the second waits (busy timeout) for the first to
 * finish, then reads the version the first wrote and applies nothing. Reading the version outside
 * the lock let two processes both see 0 and both apply migration 1 ("table runs already exists").
 * A database with nothing to apply (every open but the first after an upgrade) is only read: so it
 * opens while another process holds the write lock — paused or hung mid-write — and the command
 * meets that lock at its first write, where it is refused with the file's name (busy.ts).
 */
export function migrate(db: Database.Database, migrations: readonly Migration[] = MIGRATIONS): number[] {
  if (upToDate(db, migrations)) return [];
  return db.transaction(() => {
    db.exec(`CREATE TABLE IF NOT EXISTS schema_version (
      version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`);
    const current = (db.prepare('SELECT max(version) AS v FROM schema_version').get() as { v: number | null }).v ?? 0;
    const newest = migrations[migrations.length - 1]?.version ?? 0;
    // Also checked, with the file's path, when it is opened (open-db.ts); here for any other caller.
    if (current > newest) throw newerSchemaError('the state database', current, newest);
    const record = db.prepare('INSERT INTO schema_version (version, name, applied_at) VALUES (?, ?, ?)');
    // Every migration not yet recorded, in order — not only those above the newest recorded: a
    // database made while a lower-numbered migration was still on another branch still gets it.
    const applied = new Set(db.prepare('SELECT version FROM schema_version').pluck().all() as number[]);
    const pending = migrations.filter((m) => !applied.has(m.version));
    for (const migration of pending) {
      db.exec(migration.sql);
      record.run(migration.version, migration.name, Date.now());
    }
    return pending.map((m) => m.version);
  }).immediate();
}

/** Whether every migration is recorded and none newer than this build's (read without the write lock). */
function upToDate(db: Database.Database, migrations: readonly Migration[]): boolean {
  if (!db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'").get()) return false;
  const applied = new Set(db.prepare('SELECT version FROM schema_version').pluck().all() as number[]);
  const newest = migrations[migrations.length - 1]?.version ?? 0;
  return migrations.every((m) => applied.has(m.version)) && [...applied].every((version) => version <= newest);
}
