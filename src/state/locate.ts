import { existsSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { UsageError } from '../errors.js';
import { isPostgresAddress, parsePgAddress, rememberAddress } from './postgres/pg-url.js';

/** Files that mark a project's root folder (where its `state/` lives). */
const PROJECT_MARKERS = ['.git', 'package.json'];

/** The state database's file name in `state/`; sandbox runs keep theirs apart (never marking real jobs done). */
const STATE_FILE = { real: 'reelpipe.db', sandbox: 'sandbox.db' } as const;

/**
 * Whose runs a command is about: the real service's (false or undefined), the embedded sandbox's
 * (true: `--sandbox`), or those of the standalone sandbox at `url` (`--sandbox-url`).
 */
export type SandboxRuns = boolean | { url: string };

/**
 * The folder a manifest's project lives in: the nearest folder, from the manifest's own upward,
 * that holds `.git` or `package.json`; else the manifest's own folder.
 *
 * Policy, why not the working directory: the state database is how reelpipe knows what is paid
 * for. Found from wherever the command happens to run, the same manifest run from another
 * directory met an empty state and paid for every job again. Found from the manifest, every
 * command (plan, run, status, retry, report) lands on the same database whatever the working
 * directory. Why these markers: they are what every tool takes as a project's root (a manifest in
 * `pipelines/` of a checkout shares the checkout's `state/`); a plain folder of manifests outside
 * any project keeps its state beside them, never in some unrelated folder higher up.
 */
export function projectRoot(manifestPath: string): string {
  const start = dirname(resolve(manifestPath));
  for (let dir = start; ; dir = dirname(dir)) {
    if (PROJECT_MARKERS.some((marker) => existsSync(join(dir, marker)))) return dir;
    if (dirname(dir) === dir) return start;
  }
}

/**
 * The state database a command uses: `--state PATH` (relative to the working directory, as typed)
 * or `--state postgres://…` (its shown form, without a password: see pg-url.ts rememberAddress),
 * else, in the manifest's project, `state/reelpipe.db` — `state/sandbox.db` for the embedded
 * sandbox's runs, `state/sandbox-HOST-PORT.db` for a standalone sandbox's (standaloneStateFile).
 */
export function resolveStatePath(manifestPath: string, options: { cwd: string; statePath?: string; sandbox?: SandboxRuns }): string {
  if (options.statePath !== undefined) return notAnAddress(options.statePath, options.cwd);
  const { sandbox } = options;
  const file = !sandbox ? STATE_FILE.real : sandbox === true ? STATE_FILE.sandbox : standaloneStateFile(sandbox.url);
  return join(projectRoot(manifestPath), 'state', file);
}

/**
 * The state file of a standalone sandbox's runs, named by its address: `http://127.0.0.1:7711` →
 * `sandbox-127.0.0.1-7711.db` (an IPv6 host's colons become `_`).
 *
 * Policy, why one per address and not one for every standalone sandbox: a state database holds
 * remote ids, and those ids exist only in the sandbox that handed them out. Two sandboxes (two
 * ports, two machines) kept in one database would have the next run read one sandbox's jobs at the
 * other — 404s, jobs in doubt, work paid for again. Named by address, each sandbox's rehearsals
 * keep their own state, and a rehearsal never touches the embedded sandbox's `state/sandbox.db`
 * (whose service is its journal beside it) nor the real `state/reelpipe.db`.
 */
export function standaloneStateFile(url: string): string {
  const address = new URL(url);
  const port = address.port || (address.protocol === 'https:' ? '443' : '80');
  const host = address.hostname.replace(/^\[|\]$/g, '').replace(/[^A-Za-z0-9.-]/g, '_');
  return `sandbox-${host}-${port}.db`;
}

/** Where the files a state's runs keep go, and the name they carry (see stateFiles). */
export interface StateFiles {
  /** `state/` of the manifest's project. */
  folder: string;
  /** The state's name: `reelpipe`, `sandbox`, `sandbox-127.0.0.1-7711`, or a --state file's own. */
  name: string;
  /** A state several hosts may share (PostgreSQL): a run's log names its host too. */
  shared?: boolean;
}

/**
 * Where the files kept beside a state's runs go — their logs (`state/logs/`), the embedded
 * sandbox's journal — and the name that keeps two states' files apart. Policy: placed from the
 * manifest's project, never derived from the state's location, so a state that is no file (a
 * PostgreSQL database) needs nothing here; named for the state, since run ids count per state.
 */
export function stateFiles(manifestPath: string, stateLocation: string): StateFiles {
  return { folder: join(projectRoot(manifestPath), 'state'), name: stateName(stateLocation), shared: isPostgresAddress(stateLocation) };
}

/** A state's name for the files kept beside it: a file's own name, or `pg-HOST-PORT-DATABASE` for an address. */
function stateName(location: string): string {
  if (!isPostgresAddress(location)) return basename(location).replace(/\.db$/, '');
  const { host, port, database } = parsePgAddress(location);
  return `pg-${host}-${port}-${database}`.replace(/[^A-Za-z0-9._-]/g, '_');
}

/**
 * `--state` takes a file's path or a PostgreSQL address (`postgres://…`, `postgresql://…`),
 * checked here so a malformed one is refused (exit 2) before anything opens. Policy, why any other
 * scheme is refused rather than taken as a path: `--state mysql://host/db` would create an SQLite
 * file in a folder named `mysql:` — a state nobody else would find, and every job paid for again
 * by the next run that looked in the right place. Exit 2, nothing opened or created; only the
 * scheme is repeated (an address may carry a password).
 */
function notAnAddress(statePath: string, cwd: string): string {
  if (isPostgresAddress(statePath.trim())) return rememberAddress(statePath.trim());
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(statePath.trim())?.[1];
  if (scheme === undefined) return resolve(cwd, statePath);
  throw new UsageError(`--state ${scheme}://…: a state is an SQLite file's path or a PostgreSQL address (postgres://USER@HOST:PORT/DATABASE)`);
}
