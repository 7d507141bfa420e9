import { execFile, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { migratePostgres } from '../../src/state/postgres/pg-migrate.js';
import { databaseUrl, findPgBin, PG_TEMPLATE, startPostgres, type PgCluster, type PostgresServer } from './postgres-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The test run's PostgreSQL server, as its superuser (`postgres://postgres@127.0.0.1:PORT/postgres`). */
    pgUrl: string;
    /** Why there is no server, and how to get one: provided instead of `pgUrl` and `pgCluster`. */
    pgError: string;
    /** What `restartPgServer` needs to restart the server from a test worker. */
    pgCluster: PgCluster;
  }
}

const run = promisify(execFile);

/** Debian packages the suite needs, each with how to tell that it is there. */
const PACKAGES: { name: string; present: () => boolean }[] = [
  // The report test opens the report in it (test/e2e/browser.ts).
  { name: 'chromium', present: () => existsSync('/usr/bin/chromium') },
  { name: 'postgresql-15', present: () => { try { findPgBin(); return true; } catch { return false; } } },
];

const say = (line: string) => process.stderr.write(`test setup: ${line}\n`);

const APT_GET = ['env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get'];

/** How to run apt-get as root (directly when we are root), or why it cannot be. */
function aptGetAsRoot(): { file: string; args: string[] } | { reason: string } {
  if (!existsSync('/usr/bin/apt-get')) return { reason: 'apt-get is not available' };
  if (process.getuid?.() === 0) return { file: 'env', args: APT_GET.slice(1) };
  if (spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0) return { file: 'sudo', args: ['-n', ...APT_GET] };
  return { reason: 'not root and no passwordless sudo' };
}

/**
 * Installs the missing packages with apt-get. Why it never throws: a machine without them still
 * runs the rest of the suite, and each test that needs one fails saying how to get it.
 */
async function installMissingPackages(): Promise<void> {
  const missing = PACKAGES.filter((p) => !p.present()).map((p) => p.name);
  if (missing.length === 0) return;
  const aptGet = aptGetAsRoot();
  if ('reason' in aptGet) {
    say(`${missing.join(', ')} missing and not installed (${aptGet.reason}): the tests that need them will fail; apt-get install -y ${missing.join(' ')}`);
    return;
  }
  say(`installing ${missing.join(', ')} (missing here): apt-get update && apt-get install -y --no-install-recommends ${missing.join(' ')}`);
  const options = { maxBuffer: 256 * 1024 * 1024, timeout: 20 * 60_000 };
  try {
    await run(aptGet.file, [...aptGet.args, 'update'], options);
    await run(aptGet.file, [...aptGet.args, 'install', '-y', '--no-install-recommends', ...missing], options);
  } catch (error) {
    const { stderr } = error as { stderr?: string };
    say(`apt-get failed, the tests that need ${missing.join(', ')} will fail: ${(stderr || (error as Error).message).trim().split('\n').slice(-3).join(' | ')}`);
  }
}

/**
 * Creates the template every test database is cloned from, at this build's schema. Why connections
 * are then refused and ended: CREATE DATABASE … TEMPLATE fails while anyone is connected to it.
 */
async function prepareTemplate(serverUrl: string): Promise<void> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${PG_TEMPLATE}`);
    await migratePostgres(databaseUrl(serverUrl, PG_TEMPLATE));
    await admin.query(`ALTER DATABASE ${PG_TEMPLATE} WITH IS_TEMPLATE true ALLOW_CONNECTIONS false`);
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [PG_TEMPLATE]);
  } finally {
    await admin.end();
  }
}

/**
 * vitest's globalSetup: installs what a fresh Debian machine lacks, then starts one PostgreSQL
 * cluster for the whole run with a migrated template. When the server cannot be had, it provides
 * the reason instead, so that only the tests that need PostgreSQL fail.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  await installMissingPackages();
  let server: PostgresServer | undefined;
  try {
    server = await startPostgres();
    await prepareTemplate(server.url);
    const { binDir, dataDir, logFile, port } = server;
    project.provide('pgCluster', { binDir, dataDir, logFile, port });
    project.provide('pgUrl', server.url);
  } catch (error) {
    await server?.stop().catch(() => undefined);
    server = undefined;
    project.provide('pgError', `no PostgreSQL for the tests (test/helpers/global-setup.ts): ${(error as Error).message}`);
  }
  return async () => {
    await server?.stop();
  };
}
