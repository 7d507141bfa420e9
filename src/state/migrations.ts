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
