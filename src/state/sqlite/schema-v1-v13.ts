import type { Migration } from './migrations.js';

/**
 * The schema's first thirteen changes, as they shipped (migrations.ts lists every change and
 * applies them). Never edit one: append a new migration there.
 */
export const SCHEMA_V1_TO_V13: readonly Migration[] = [
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
    // reads it, a job at a time (outputs, references, reconciliation): see JOB_ROWS in state/sqlite/job-row.ts.
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
];
