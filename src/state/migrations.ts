import type Database from 'better-sqlite3';
import { StateMismatchError } from '../errors.js';

/** One schema change: applied once, in order, inside a transaction, and recorded by version. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
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
  {
    version: 1,
    name: 'initial: runs, jobs, attempts, outputs, events, locks',
    sql: `
      CREATE TABLE runs (
        id INTEGER PRIMARY KEY,
        manifest TEXT NOT NULL,
        host TEXT NOT NULL,
        pid INTEGER NOT NULL,
        started_at INTEGER NOT NULL,
        finished_at INTEGER,
        outcome TEXT,
        max_credits REAL
      );
      CREATE TABLE jobs (
        key TEXT PRIMARY KEY,
        manifest TEXT NOT NULL,
        step TEXT NOT NULL,
        kind TEXT NOT NULL,
        output_name TEXT,
        request TEXT NOT NULL,
        path_id TEXT,
        remote_id TEXT,
        status TEXT NOT NULL,
        remote_status TEXT,
        credits_estimated REAL,
        credits_reserved REAL NOT NULL DEFAULT 0,
        credits_used REAL,
        result TEXT,
        failed_reason TEXT,
        attempt_count INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        submitted_at INTEGER,
        finished_at INTEGER
      );
      CREATE INDEX jobs_by_manifest ON jobs (manifest, step);
      CREATE INDEX jobs_by_status ON jobs (status);
      CREATE UNIQUE INDEX jobs_by_remote_id ON jobs (kind, remote_id) WHERE remote_id IS NOT NULL;
      CREATE TABLE attempts (
        id INTEGER PRIMARY KEY,
        job_key TEXT NOT NULL REFERENCES jobs (key),
        run_id INTEGER REFERENCES runs (id),
        state TEXT NOT NULL,
        request TEXT NOT NULL,
        intent_at INTEGER NOT NULL,
        answered_at INTEGER,
        remote_id TEXT,
        error TEXT
      );
      CREATE INDEX attempts_by_job ON attempts (job_key);
      CREATE TABLE outputs (
        job_key TEXT NOT NULL REFERENCES jobs (key),
        idx INTEGER NOT NULL,
        url TEXT NOT NULL,
        path TEXT,
        bytes INTEGER,
        sha256 TEXT,
        content_type TEXT,
        downloaded_at INTEGER,
        PRIMARY KEY (job_key, idx)
      );
      CREATE TABLE events (
        id INTEGER PRIMARY KEY,
        at INTEGER NOT NULL,
        run_id INTEGER,
        job_key TEXT,
        type TEXT NOT NULL,
        data TEXT
      );
      CREATE INDEX events_by_job ON events (job_key);
      CREATE TABLE locks (
        name TEXT PRIMARY KEY,
        run_id INTEGER,
        host TEXT NOT NULL,
        pid INTEGER NOT NULL,
        acquired_at INTEGER NOT NULL,
        heartbeat_at INTEGER NOT NULL
      );
    `,
  },
  {
    version: 2,
    name: 'jobs.credits_prior: what earlier, failed attempts of a retried job cost',
    sql: `ALTER TABLE jobs ADD COLUMN credits_prior REAL NOT NULL DEFAULT 0;`,
  },
  {
    version: 3,
    name: 'jobs.doubt_reason: why a job is held in doubt, for status and the summary',
    sql: `ALTER TABLE jobs ADD COLUMN doubt_reason TEXT;`,
  },
  {
    version: 4,
    name: 'jobs, attempts and outputs keyed by (manifest, key): each manifest owns its jobs',
    // Why: the lock is per manifest, so two manifests with an identical job (same key) must not
    // share a row (outputs, statuses, a concurrent run's recovery). Rows made before this
    // migration stay with the manifest that first recorded them. SQLite cannot change a primary
    // key in place: the three tables are rebuilt, children dropped before their parent.
    sql: `
      CREATE TABLE jobs_v4 (
        key TEXT NOT NULL,
        manifest TEXT NOT NULL,
        step TEXT NOT NULL,
        kind TEXT NOT NULL,
        output_name TEXT,
        request TEXT NOT NULL,
        path_id TEXT,
        remote_id TEXT,
        status TEXT NOT NULL,
        remote_status TEXT,
        credits_estimated REAL,
        credits_reserved REAL NOT NULL DEFAULT 0,
        credits_used REAL,
        result TEXT,
        failed_reason TEXT,
        attempt_count INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        submitted_at INTEGER,
        finished_at INTEGER,
        credits_prior REAL NOT NULL DEFAULT 0,
        doubt_reason TEXT,
        PRIMARY KEY (manifest, key)
      );
      INSERT INTO jobs_v4 SELECT key, manifest, step, kind, output_name, request, path_id, remote_id, status,
        remote_status, credits_estimated, credits_reserved, credits_used, result, failed_reason, attempt_count,
        created_at, updated_at, submitted_at, finished_at, credits_prior, doubt_reason FROM jobs;
      CREATE TABLE attempts_v4 (
        id INTEGER PRIMARY KEY,
        manifest TEXT NOT NULL,
        job_key TEXT NOT NULL,
        run_id INTEGER REFERENCES runs (id),
        state TEXT NOT NULL,
        request TEXT NOT NULL,
        intent_at INTEGER NOT NULL,
        answered_at INTEGER,
        remote_id TEXT,
        error TEXT,
        FOREIGN KEY (manifest, job_key) REFERENCES jobs_v4 (manifest, key)
      );
      INSERT INTO attempts_v4 SELECT a.id, j.manifest, a.job_key, a.run_id, a.state, a.request, a.intent_at,
        a.answered_at, a.remote_id, a.error FROM attempts a JOIN jobs j ON j.key = a.job_key;
      CREATE TABLE outputs_v4 (
        manifest TEXT NOT NULL,
        job_key TEXT NOT NULL,
        idx INTEGER NOT NULL,
        url TEXT NOT NULL,
        path TEXT,
        bytes INTEGER,
        sha256 TEXT,
        content_type TEXT,
        downloaded_at INTEGER,
        PRIMARY KEY (manifest, job_key, idx),
        FOREIGN KEY (manifest, job_key) REFERENCES jobs_v4 (manifest, key)
      );
      INSERT INTO outputs_v4 SELECT j.manifest, o.job_key, o.idx, o.url, o.path, o.bytes, o.sha256, o.content_type,
        o.downloaded_at FROM outputs o JOIN jobs j ON j.key = o.job_key;
      ALTER TABLE events ADD COLUMN manifest TEXT;
      UPDATE events SET manifest = (SELECT manifest FROM jobs WHERE jobs.key = events.job_key) WHERE job_key IS NOT NULL;
      DROP TABLE outputs;
      DROP TABLE attempts;
      DROP TABLE jobs;
      ALTER TABLE jobs_v4 RENAME TO jobs;
      ALTER TABLE attempts_v4 RENAME TO attempts;
      ALTER TABLE outputs_v4 RENAME TO outputs;
      CREATE INDEX jobs_by_status ON jobs (manifest, status);
      CREATE UNIQUE INDEX jobs_by_remote_id ON jobs (kind, remote_id) WHERE remote_id IS NOT NULL;
      CREATE INDEX attempts_by_job ON attempts (manifest, job_key);
      CREATE INDEX attempts_by_remote_id ON attempts (remote_id) WHERE remote_id IS NOT NULL;
      DROP INDEX events_by_job;
      CREATE INDEX events_by_job ON events (manifest, job_key);
    `,
  },
  {
    version: 5,
    name: 'locks.token: a random owner token per holder (host and pid are not unique across containers)',
    sql: `ALTER TABLE locks ADD COLUMN token TEXT;`,
  },
  {
    version: 6,
    name: 'locks.pid_ns: the holder\'s pid namespace (a pid is only meaningful inside its own namespace)',
    sql: `ALTER TABLE locks ADD COLUMN pid_ns TEXT;`,
  },
  {
    version: 7,
    name: 'outputs.mtime_ns: the file\'s mtime when its sha256 was last written or verified (trusted while unchanged)',
    // Why: a re-run checks every recorded output. Re-hashing them all would read every byte; a
    // file whose size and mtime (nanoseconds, as text: it does not fit a double) are unchanged
    // since its checksum was verified is trusted, anything else re-hashed (src/download/verify-file.ts).
    sql: `ALTER TABLE outputs ADD COLUMN mtime_ns TEXT;`,
  },
  {
    version: 8,
    name: 'meta.state_id: an identity per state database, which the outputs folder records as its owner',
    // Why: an outputs folder filled by one state database must never be filled again by another
    // (run from another directory, or a database deleted or emptied): that would pay for every job
    // again. The folder keeps this id (see state/outputs-owner.ts); a fresh database has a new one.
    sql: `
      CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      INSERT INTO meta (key, value) VALUES ('state_id', lower(hex(randomblob(16))));
      INSERT INTO meta (key, value) VALUES ('created_at', strftime('%Y-%m-%dT%H:%M:%SZ', 'now'));
    `,
  },
  {
    version: 9,
    name: 'hook_runs: each run of a manifest hook, recorded before it starts and after it ends',
    // Why before and after: a hook must run once per output across kills. A row still `running`
    // when a later run starts was cut off (that run died): it is marked `interrupted` and run
    // again. `argv` is as substituted but with {{ env.X }} left unsubstituted and credentials
    // redacted; the output tails are bounded (src/run/hooks/run-command.ts).
    sql: `
      CREATE TABLE hook_runs (
        id INTEGER PRIMARY KEY,
        manifest TEXT NOT NULL,
        run_id INTEGER,
        hook TEXT NOT NULL,
        job_key TEXT,
        output_idx INTEGER,
        output_sha256 TEXT,
        state TEXT NOT NULL,
        argv TEXT NOT NULL,
        started_at INTEGER NOT NULL,
        finished_at INTEGER,
        exit_code INTEGER,
        signal TEXT,
        timed_out INTEGER NOT NULL DEFAULT 0,
        duration_ms INTEGER,
        stdout_tail TEXT,
        stderr_tail TEXT,
        error TEXT
      );
      CREATE INDEX hook_runs_by_output ON hook_runs (manifest, job_key, output_idx, id);
      CREATE INDEX hook_runs_by_run ON hook_runs (manifest, hook, id);
    `,
  },
  {
    version: 10,
    name: 'attempts.hook_token and delivered_id: a per-attempt webhook address, and the remote id a delivery to it named',
    // Why: a creation whose answer was lost leaves a job in doubt; when its webhook_url named the
    // attempt, the service's own delivery says which job it made — for every kind that takes a
    // webhook, including those whose lists cannot be searched (see run/track/deliveries.ts).
    sql: `
      ALTER TABLE attempts ADD COLUMN hook_token TEXT;
      ALTER TABLE attempts ADD COLUMN delivered_id TEXT;
      CREATE UNIQUE INDEX attempts_by_hook_token ON attempts (hook_token) WHERE hook_token IS NOT NULL;
    `,
  },
  {
    version: 11,
    name: 'outputs.stat_stamp: size, mtime and ctime when the sha256 was last written or verified (trusted while unchanged)',
    // Why: the mtime alone (version 7) can be set back — a byte flipped, then `touch -d` — and the
    // file passed as intact unread. The ctime cannot be set back from userland, so a file is
    // trusted unread only while its size, mtime and ctime are the ones stamped after its rename
    // into place or its last full check (src/download/verify-file.ts). mtime_ns is no longer
    // written; a row of an older reelpipe has no stamp, so its file is read in full once.
    sql: `ALTER TABLE outputs ADD COLUMN stat_stamp TEXT;`,
  },
  {
    version: 12,
    name: 'events_by_run: the events of one run, found without reading every run before it',
    // Why: every report names the jobs its run changed (report/run-info.ts), and without this index
    // that was a scan of the whole events table, which grows with every run a manifest has had
    // (50 ms at one 10,000-job run's 40,000 events, then more each night).
    sql: `CREATE INDEX events_by_run ON events (run_id, job_key);`,
  },
  {
    version: 13,
    name: 'job_results: the last read of each remote job, apart from the rows every scan reads',
    // Why: the read (a kilobyte or more of the service's JSON) was four fifths of a job's row, so
    // every scan of a manifest's jobs (planning, the start of a run, its summary, the report) read
    // five times the pages it needed: 3,343 pages for 10,000 jobs instead of 670. Only the runner
    // reads it, a job at a time (outputs, references, reconciliation): see JOB_ROWS in state/job-row.ts.
    // Why jobs.result is emptied, not dropped: a reelpipe from before this migration may still be
    // running on the file (another manifest, upgraded under it) and writes and reads that column;
    // this one reads it when job_results has nothing (JOB_ROWS), and empties it on every write.
    sql: `CREATE TABLE job_results (
        manifest TEXT NOT NULL,
        job_key TEXT NOT NULL,
        result TEXT NOT NULL,
        PRIMARY KEY (manifest, job_key),
        FOREIGN KEY (manifest, job_key) REFERENCES jobs (manifest, key)
      );
      INSERT INTO job_results SELECT manifest, key, result FROM jobs WHERE result IS NOT NULL;
      UPDATE jobs SET result = NULL WHERE result IS NOT NULL;`,
    // Emptying rows in place leaves the table's pages four fifths empty, and a scan reads them all
    // the same; rebuilding the table instead would trip its children's foreign keys (which a
    // transaction cannot switch off), so the file is compacted afterwards.
    compactAfter: true,
  },
  {
    version: 14,
    name: 'charges, job_items: one record per remote job (what it cost, what came back, why it no longer counts), each item of a job',
    // Why a table of its own: a job's row held only its current attempt's cost (and a sum of its
    // earlier ones), and `forget` deleted it, so spend vanished from every figure: an edited row's
    // old job, a forgotten job, the runs (a killed run's share was unknowable). A charge is never
    // deleted; every total is a sum over charges (state/money.ts). No foreign key to jobs: it
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
 */
export function migrate(db: Database.Database, migrations: readonly Migration[] = MIGRATIONS): number[] {
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
