import type Database from 'better-sqlite3';
import { StateError } from '../errors.js';

/** One schema change: applied once, in order, inside a transaction, and recorded by version. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
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
];

/** The newest schema this build knows. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;

/**
 * Brings the database up to SCHEMA_VERSION, one migration per transaction. A database newer than
 * this build is refused rather than guessed at: an older reelpipe must not corrupt newer state.
 */
export function migrate(db: Database.Database, migrations: readonly Migration[] = MIGRATIONS): number[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_version (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`);
  const current = (db.prepare('SELECT max(version) AS v FROM schema_version').get() as { v: number | null }).v ?? 0;
  const newest = migrations[migrations.length - 1]?.version ?? 0;
  if (current > newest) {
    throw new StateError(
      `state database is at schema version ${current}, newer than this reelpipe (${newest}); upgrade reelpipe`,
    );
  }
  const applied: number[] = [];
  for (const migration of migrations.filter((m) => m.version > current)) {
    db.transaction(() => {
      db.exec(migration.sql);
      db.prepare('INSERT INTO schema_version (version, name, applied_at) VALUES (?, ?, ?)').run(
        migration.version,
        migration.name,
        Date.now(),
      );
    }).immediate();
    applied.push(migration.version);
  }
  return applied;
}
