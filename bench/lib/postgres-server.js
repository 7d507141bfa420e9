// A throwaway PostgreSQL server for the benchmarks and the chaos soak: Debian's binaries
// (/usr/lib/postgresql/N/bin, not on the PATH), initdb and pg_ctl in a temporary folder, trust
// auth, a free loopback port, fsync off, stopped with `-m immediate` and its folder removed. The
// tests' own (test/helpers/postgres-server.ts) does the same in TypeScript; tsconfig.build.json
// compiles src/ only, so the benches, plain JS after `npm run build`, carry this cut-down twin:
// start, a database of its own per run, the server's CPU, a restart, stop.
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from '../chaos/sandbox-process.js';

const execFileAsync = promisify(execFile);
const HOW_TO_GET = 'install Debian\'s PostgreSQL: apt-get install -y postgresql-15';

/** The newest /usr/lib/postgresql/N/bin holding the server, else the PATH's; throws saying how to get one. */
export function findPgBin(root = '/usr/lib/postgresql') {
  const hasServer = (dir) => ['pg_ctl', 'initdb', 'postgres'].every((name) => existsSync(path.join(dir, name)));
  const versions = existsSync(root) ? readdirSync(root).filter((n) => /^\d+(\.\d+)?$/.test(n)).sort((a, b) => Number(b) - Number(a)) : [];
  const found = [...versions.map((v) => path.join(root, v, 'bin')), ...(process.env.PATH ?? '').split(path.delimiter).filter(Boolean)].find(hasServer);
  if (!found) throw new Error(`PostgreSQL's server (pg_ctl, initdb, postgres) not found in ${root}/*/bin or on the PATH: ${HOW_TO_GET}`);
  return found;
}

const isRoot = () => process.getuid?.() === 0;

/** Why as the `postgres` user under root: initdb and postgres refuse to run as root. */
function pgCommand(binDir, program, args) {
  return isRoot() ? ['runuser', ['-u', 'postgres', '--', path.join(binDir, program), ...args]] : [path.join(binDir, program), args];
}

function runPg(binDir, program, args, cwd) {
  const [file, argv] = pgCommand(binDir, program, args);
  try {
    execFileSync(file, argv, { cwd, stdio: ['ignore', 'pipe', 'pipe'], timeout: 90_000 });
  } catch (error) {
    const output = `${error.stderr ?? ''}${error.stdout ?? ''}`.trim().split('\n').slice(-8).join('\n');
    throw new Error(`${program} ${args[0]} failed: ${output || error.message}`, { cause: error });
  }
}

/** A temporary folder the server's user owns (under root, the `postgres` system user). */
function makeFolder() {
  const folder = mkdtempSync(path.join(tmpdir(), 'reelpipe-bench-pg-'));
  if (isRoot()) {
    const line = readFileSync('/etc/passwd', 'utf8').split('\n').find((entry) => entry.startsWith('postgres:'));
    const [, , uid, gid] = line?.split(':') ?? [];
    if (!uid) throw new Error(`running as root, but there is no "postgres" system user to run the server as: ${HOW_TO_GET}`);
    chownSync(folder, Number(uid), Number(gid));
  }
  return folder;
}

/** user + system CPU (ms) of a process and of its children it has waited for, from /proc (0 when gone). */
function cpuOfProcess(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // utime, stime, cutime, cstime: fields 14 to 17 of stat(5), 12 to 15 after "pid (comm) ".
    return fields.slice(11, 15).reduce((sum, ticks) => sum + Number(ticks), 0) * (1000 / CLOCK_TICKS);
  } catch {
    return 0;
  }
}
const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim()) || 100;

/**
 * Starts the server; resolves with its superuser `url`, `database(name)` (a new empty database,
 * its URL), `cpuMs()` (the whole server's CPU so far: the postmaster, its live processes, and the
 * connections that ended, which the postmaster reaped) and `stop()`. A bench that dies first stops
 * it on its way out (exit, SIGINT, SIGTERM).
 */
export async function startPostgres() {
  const binDir = findPgBin();
  const folder = makeFolder();
  const dataDir = path.join(folder, 'data');
  const logFile = path.join(folder, 'postgres.log');
  const stopNow = () => {
    if (existsSync(path.join(dataDir, 'postmaster.pid'))) {
      const [file, argv] = pgCommand(binDir, 'pg_ctl', ['stop', '-D', dataDir, '-m', 'immediate', '-w']);
      spawnSync(file, argv, { cwd: folder, stdio: 'ignore', timeout: 60_000 });
    }
    rmSync(folder, { recursive: true, force: true });
  };
  const onSignal = (signal) => {
    stopNow();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  try {
    runPg(binDir, 'initdb', ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8'], folder);
    const port = await freePort();
    // The socket in the data folder, TCP on loopback only, fsync off: a throwaway server need not survive a power cut.
    const serverOptions = `-k ${dataDir} -p ${port} -c listen_addresses=127.0.0.1 -c fsync=off`;
    runPg(binDir, 'pg_ctl', ['start', '-D', dataDir, '-l', logFile, '-w', '-o', serverOptions], folder);
    process.on('exit', stopNow);
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    const postmasterPid = () => Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    let postmaster = postmasterPid();
    return {
      url,
      port,
      logFile,
      database: async (name) => {
        await adminQuery(url, `CREATE DATABASE ${name}`);
        return url.replace(/\/postgres$/, `/${name}`);
      },
      cpuMs: () => cpuOfProcess(postmaster) + childrenOf(postmaster).reduce((sum, pid) => sum + cpuOfProcess(pid), 0),
      /** `pg_ctl restart -m fast -w` (every connection dropped), same port and options; `-l` so pg_ctl's pipe closes. */
      restart: async () => {
        // Not execFileSync: the soak's timers (kills, pauses) go on while the server comes back.
        const [file, argv] = pgCommand(binDir, 'pg_ctl', ['restart', '-D', dataDir, '-m', 'fast', '-l', logFile, '-w', '-o', serverOptions]);
        await execFileAsync(file, argv, { cwd: folder, timeout: 90_000 });
        postmaster = postmasterPid();
      },
      stop: () => {
        process.off('exit', stopNow);
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
        stopNow();
      },
    };
  } catch (error) {
    stopNow();
    throw new Error(`could not start a PostgreSQL server with ${binDir}: ${error.message} (${HOW_TO_GET})`, { cause: error });
  }
}

function childrenOf(pid) {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** One statement on a connection of its own. */
export async function adminQuery(url, sql, params = []) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows;
  } finally {
    await client.end();
  }
}

/** Whether a state location is a PostgreSQL address (else a SQLite file), as reelpipe tells them. */
export function isPostgres(location) {
  return /^postgres(ql)?:\/\//i.test(location);
}
