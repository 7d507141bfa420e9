import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { databaseUrl, HOW_TO_GET_POSTGRES, PG_TEMPLATE, restartCluster, type PgCluster, type PgStopMode } from './postgres-server.js';

const NOT_SET_UP = 'no PostgreSQL server was provided to this test: test/helpers/global-setup.ts must be vitest\'s globalSetup (vitest.config.ts)';

/** The test run's server as its superuser; throws why there is none and how to get one. */
export function pgServerUrl(): string {
  const error: string | undefined = inject('pgError');
  if (error) throw new Error(error);
  const url: string | undefined = inject('pgUrl');
  if (!url) throw new Error(`${NOT_SET_UP} (${HOW_TO_GET_POSTGRES})`);
  return url;
}

/** Runs `sql` on `url` (default: the server's `postgres` database) on a connection of its own, and returns the rows. */
export async function pgRows<R = Record<string, unknown>>(sql: string, url: string = pgServerUrl()): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as R[];
  } finally {
    await client.end();
  }
}

async function adminQuery(sql: string): Promise<void> {
  await pgRows(sql);
}

export interface PgDatabase {
  name: string;
  /** `postgres://postgres@127.0.0.1:PORT/NAME`. */
  url: string;
  /** Drops the database, ending whatever connections are still open to it. */
  drop(): Promise<void>;
}

let made = 0;

/**
 * A database of its own, cloned from the migrated template (about 30 ms): a test file's state
 * that no other file running in parallel sees.
 */
export async function freshPgDatabase(): Promise<PgDatabase> {
  made += 1;
  // Why pid, a count and random bytes: workers in parallel, and re-runs in one worker, never collide.
  const name = `reelpipe_test_${process.pid}_${made}_${randomBytes(3).toString('hex')}`;
  await adminQuery(`CREATE DATABASE ${name} TEMPLATE ${PG_TEMPLATE}`);
  const url = databaseUrl(pgServerUrl(), name);
  // A clone is a copy of the template, its identity included (as a copied SQLite file is): each
  // test's state gets one of its own, as a database migrated from nothing would have.
  await pgRows("UPDATE meta SET value = md5(random()::text || clock_timestamp()::text) WHERE key = 'state_id'", url);
  return {
    name,
    url,
    drop: () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

/** The running cluster as the globalSetup process provided it. */
function providedCluster(): PgCluster {
  pgServerUrl();
  return inject('pgCluster');
}

/**
 * `pg_ctl restart -m MODE` on the test run's server (from a test worker: the server belongs to the
 * globalSetup process), or on `cluster` when given. Every file shares the run's server, so a test
 * that restarts it disturbs the files running beside it: prefer a cluster of its own
 * (`startPostgres()` from postgres-server.ts) and pass it.
 */
export async function restartPgServer(mode: PgStopMode = 'fast', cluster: PgCluster = providedCluster()): Promise<void> {
  await restartCluster(cluster, mode);
}
