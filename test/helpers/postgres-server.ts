import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port.js';

const run = promisify(execFile);

/** How to get a server when none can be had: said by every error of this file. */
export const HOW_TO_GET_POSTGRES =
  'install Debian\'s PostgreSQL (apt-get install -y postgresql-15; `npm test` does it itself when run as root or with passwordless sudo)';

/** What a test worker needs to drive a cluster that another process started: all serialisable. */
export interface PgCluster {
  /** The folder holding `pg_ctl`, `initdb` and `postgres`. */
  binDir: string;
  dataDir: string;
  logFile: string;
  port: number;
}

export type PgStopMode = 'smart' | 'fast' | 'immediate';

export interface PostgresServer extends PgCluster {
  /** `postgres://postgres@127.0.0.1:PORT/postgres`: the superuser, no password (trust). */
  url: string;
  /** `pg_ctl restart -m MODE`, waiting until the server takes connections again. */
  restart(mode?: PgStopMode): Promise<void>;
  /** Stops the server at once (`-m immediate`) and removes its folder. */
  stop(): Promise<void>;
}

/**
 * The newest `/usr/lib/postgresql/N/bin` (Debian's layout: the server binaries are not on the
 * PATH), else the PATH's folder holding `pg_ctl`; throws saying how to install one.
 */
export function findPgBin(roots: string[] = ['/usr/lib/postgresql'], searchPath = process.env.PATH ?? ''): string {
  const hasServer = (dir: string) => ['pg_ctl', 'initdb', 'postgres'].every((name) => existsSync(join(dir, name)));
  const versioned = roots.flatMap((root) => (existsSync(root) ? readdirSync(root) : [])
    .filter((name) => /^\d+(\.\d+)?$/.test(name))
    .map((name) => ({ version: Number(name), dir: join(root, name, 'bin') })));
  const newest = versioned.filter(({ dir }) => hasServer(dir)).sort((a, b) => b.version - a.version)[0];
  if (newest) return newest.dir;
  const onPath = searchPath.split(delimiter).find((dir) => dir !== '' && hasServer(dir));
  if (onPath) return onPath;
  throw new Error(`PostgreSQL's server (pg_ctl, initdb, postgres) not found in ${roots.map((r) => `${r}/*/bin`).join(', ')} or on the PATH: ${HOW_TO_GET_POSTGRES}`);
}

/** The `postgres` system user's uid and gid, or null when there is none. */
function postgresUser(): { uid: number; gid: number } | null {
  const line = readFileSync('/etc/passwd', 'utf8').split('\n').find((entry) => entry.startsWith('postgres:'));
  const [, , uid, gid] = line?.split(':') ?? [];
  return uid && gid ? { uid: Number(uid), gid: Number(gid) } : null;
}

const isRoot = () => process.getuid?.() === 0;

/**
 * Runs a PostgreSQL binary. Why as the `postgres` user under root: `initdb` and `postgres` refuse
 * to run as root. The working folder is `cwd` because the postgres user may not read the caller's.
 */
async function runPg(binDir: string, program: string, args: string[], cwd: string): Promise<void> {
  const [file, argv] = isRoot()
    ? ['runuser', ['-u', 'postgres', '--', join(binDir, program), ...args]]
    : [join(binDir, program), args];
  try {
    await run(file, argv, { cwd, timeout: 90_000 });
  } catch (error) {
    const { stderr, stdout } = error as { stderr?: string; stdout?: string };
    const output = `${stderr ?? ''}${stdout ?? ''}`.trim().split('\n').slice(-8).join('\n');
    throw new Error(`${program} ${args[0] ?? ''} failed: ${output || (error as Error).message}`, { cause: error });
  }
}

/**
 * The server's options, the same at start and restart. Why each: the socket in the data folder (no
 * shared /var/run/postgresql), TCP on loopback only, and fsync off — a throwaway cluster need not
 * survive a power cut, and syncing made every commit wait on the disk.
 */
function serverOptions({ dataDir, port }: PgCluster): string {
  return `-k ${dataDir} -p ${port} -c listen_addresses=127.0.0.1 -c fsync=off`;
}

/** The log's last lines written after byte `from`, for an error about the server. */
function logTail(logFile: string, from = 0): string {
  if (!existsSync(logFile)) return '(no log)';
  return readFileSync(logFile).subarray(from).toString('utf8').trim().split('\n').slice(-6).join('\n');
}

const logSize = (logFile: string) => (existsSync(logFile) ? statSync(logFile).size : 0);

/**
 * `pg_ctl restart -m MODE -w` on a cluster. Why `-l` here too: without it the restarted server
 * writes to pg_ctl's output, so the pipe the caller reads never closes and the call never returns.
 */
export async function restartCluster(cluster: PgCluster, mode: PgStopMode = 'fast'): Promise<void> {
  const args = ['restart', '-D', cluster.dataDir, '-m', mode, '-l', cluster.logFile, '-w', '-o', serverOptions(cluster)];
  const logStart = logSize(cluster.logFile);
  await runPg(cluster.binDir, 'pg_ctl', args, cluster.dataDir).catch((error: Error) => {
    throw new Error(`${error.message}\nserver log (${cluster.logFile}):\n${logTail(cluster.logFile, logStart)}`, { cause: error });
  });
}

/** `pg_ctl start -w` on a stopped cluster, with the options it was first started with: a database back after an outage. */
export async function startCluster(cluster: PgCluster): Promise<void> {
  const logStart = logSize(cluster.logFile);
  await runPg(cluster.binDir, 'pg_ctl', ['start', '-D', cluster.dataDir, '-l', cluster.logFile, '-w', '-o', serverOptions(cluster)], cluster.dataDir).catch((error: Error) => {
    throw new Error(`${error.message}\nserver log (${cluster.logFile}):\n${logTail(cluster.logFile, logStart)}`, { cause: error });
  });
}

/** `pg_ctl stop -m immediate`: nothing of a throwaway cluster is worth a clean shutdown. */
export async function stopCluster(cluster: PgCluster): Promise<void> {
  if (!existsSync(join(cluster.dataDir, 'postmaster.pid'))) return;
  await runPg(cluster.binDir, 'pg_ctl', ['stop', '-D', cluster.dataDir, '-m', 'immediate', '-w'], cluster.dataDir);
}

/** A folder the server's user owns, with the cluster, its socket and its log inside. */
function makeFolder(): { folder: string; dataDir: string; logFile: string } {
  const folder = mkdtempSync(join(tmpdir(), 'reelpipe-pg-'));
  if (isRoot()) {
    const user = postgresUser();
    if (!user) {
      rmSync(folder, { recursive: true, force: true });
      throw new Error(`running as root, but there is no "postgres" system user to run the server as: ${HOW_TO_GET_POSTGRES}`);
    }
    chownSync(folder, user.uid, user.gid);
  }
  return { folder, dataDir: join(folder, 'data'), logFile: join(folder, 'postgres.log') };
}

/** Why retry: the free port is found by binding and closing, so another process may take it first. */
const PORT_ATTEMPTS = 5;

/**
 * Starts a throwaway PostgreSQL cluster (trust auth, user `postgres`, UTF8, fsync off) in a temporary
 * folder on a free loopback port. Throws — never skips — saying how to get a server when it cannot.
 */
export async function startPostgres(): Promise<PostgresServer> {
  const binDir = findPgBin();
  const { folder, dataDir, logFile } = makeFolder();
  try {
    await runPg(binDir, 'initdb', ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8'], folder);
    const cluster = await startOnFreePort(binDir, dataDir, logFile);
    return {
      ...cluster,
      url: `postgres://postgres@127.0.0.1:${cluster.port}/postgres`,
      restart: (mode = 'fast') => restartCluster(cluster, mode),
      stop: async () => {
        await stopCluster(cluster);
        rmSync(folder, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(folder, { recursive: true, force: true });
    throw new Error(`could not start a PostgreSQL server with ${binDir}: ${(error as Error).message}\n(${HOW_TO_GET_POSTGRES})`, { cause: error });
  }
}

async function startOnFreePort(binDir: string, dataDir: string, logFile: string): Promise<PgCluster> {
  for (let attempt = 1; ; attempt += 1) {
    const cluster = { binDir, dataDir, logFile, port: await freePort() };
    const logStart = logSize(logFile);
    try {
      await runPg(binDir, 'pg_ctl', ['start', '-D', dataDir, '-l', logFile, '-w', '-o', serverOptions(cluster)], dataDir);
      return cluster;
    } catch (error) {
      const log = logTail(logFile, logStart);
      if (attempt < PORT_ATTEMPTS && /could not bind|address already in use/i.test(log)) continue;
      throw new Error(`${(error as Error).message}\nserver log (${logFile}):\n${log}`, { cause: error });
    }
  }
}

/** The database every test database is cloned from: migrated once per test run (global-setup.ts). */
export const PG_TEMPLATE = 'reelpipe_template';

/** The server's URL with another database in its path. */
export function databaseUrl(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}
