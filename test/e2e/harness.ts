import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { runCli } from '../helpers/cli.js';
import { freshPgDatabase } from '../helpers/pg-database.js';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { postgresRows, sqliteRows, type StateRows, type StoreKind } from './state-rows.js';

export { STORES, type StoreKind } from './state-rows.js';

/** Sandbox speed for the end-to-end tests, and the runner's matching time scale. */
export const SPEED = 2000;
export const TIME_SCALE = String(1 / SPEED);

export interface ProjectOptions extends SandboxOptions {
  /**
   * The store the project's commands keep their state in: `state/reelpipe.db`, or a fresh
   * PostgreSQL database of the test run's server, given to every command as REELPIPE_STATE.
   * @default 'sqlite'
   */
  store?: StoreKind;
}

/** A temporary project folder with a sandbox on port 0 and the CLI pointed at it. */
export interface Project {
  dir: string;
  sandbox: Sandbox;
  store: StoreKind;
  /** The state the commands use, as they name it: the SQLite file's path or the database's address. */
  state: string;
  write(name: string, text: string): string;
  /**
   * Runs `reelpipe ARGS` in the project (or in `cwd`) against the sandbox, with `env` added. On
   * PostgreSQL, REELPIPE_STATE names the project's database (a `--state` given wins, and neither
   * `--sandbox` nor `--sandbox-url` reads the variable).
   */
  cli(args: string[], env?: Record<string, string>, cwd?: string): ReturnType<typeof runCli>;
  /** The environment `cli` runs the CLI with (the sandbox, test credentials, REELPIPE_STATE on PostgreSQL): for a test that starts the CLI itself. */
  env: Record<string, string>;
  /** The rows of the project's state, on either store, read directly (not through our code): `?` placeholders. */
  rows<T>(sql: string, ...params: unknown[]): Promise<T[]>;
  /** Changes the project's state directly, as a hand edit would; returns the rows changed. */
  execute(sql: string, ...params: unknown[]): Promise<number>;
  /** The rows of the project's SQLite state database (state/reelpipe.db), read directly: for the tests that run on SQLite only. */
  query<T>(sql: string, ...params: unknown[]): T[];
  /** The same, of the state database at `dbPath`. */
  queryAt<T>(dbPath: string, sql: string, ...params: unknown[]): T[];
  close(): Promise<void>;
}

/** Waits (polling every 20 ms) until `check` holds; throws after `ms`, naming `what`. */
export async function until(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** How many jobs the project's sandbox has created, of every kind. */
export const created = (p: Pick<Project, 'sandbox'>): number => Object.values(p.sandbox.stats().created).reduce((a, b) => a + b, 0);

export async function openProject({ store = 'sqlite', ...options }: ProjectOptions = {}): Promise<Project> {
  const dir = mkdtempSync(join(tmpdir(), 'reelpipe-e2e-'));
  const database = store === 'postgres' ? await freshPgDatabase() : undefined;
  const sandbox = await startSandbox({ port: 0, speed: SPEED, seed: 7, credits: 1_000_000, ...options }).catch(async (error: unknown) => {
    await database?.drop();
    throw error;
  });
  const sqlitePath = join(dir, 'state', 'reelpipe.db');
  const state = database?.url ?? sqlitePath;
  const env = {
    REELPIPE_BASE_URL: sandbox.url, REELPIPE_API_ID: 'e2e-api-id', REELPIPE_API_KEY: 'e2e-api-key-secret',
    ...(database ? { REELPIPE_STATE: database.url } : {}),
  };
  const stateRows: StateRows = database ? postgresRows(database.url) : sqliteRows(sqlitePath);
  return {
    dir,
    sandbox,
    store,
    state,
    env,
    write: (name, text) => {
      writeFileSync(join(dir, name), text);
      return join(dir, name);
    },
    cli: (args, extra = {}, cwd = dir) => runCli(args, { cwd, env: { ...env, ...extra }, timeout: 60_000 }),
    rows: stateRows.rows,
    execute: stateRows.execute,
    query: <T>(sql: string, ...params: unknown[]) => {
      if (database) throw new Error(`project.query reads state/reelpipe.db, but this project's state is ${database.url}: await project.rows(…) reads either`);
      return queryAt<T>(sqlitePath, sql, ...params);
    },
    queryAt,
    close: async () => {
      await stateRows.close();
      await sandbox.close();
      await database?.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function queryAt<T>(dbPath: string, sql: string, ...params: unknown[]): T[] {
  const db = new Database(dbPath, { readonly: true });
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}

const OUTPUTS = 'SELECT path, sha256, bytes FROM outputs';
const CREDITS = 'SELECT sum(coalesce(credits_used, 0) + credits_prior) AS total FROM jobs';
const STATUSES = 'SELECT status, count(*) AS n FROM jobs GROUP BY status';
type OutputRow = { path: string; sha256: string; bytes: number };

/** Which recorded outputs are missing or differ from their file's sha256 and size. */
function outputsAgainstFiles(rows: OutputRow[], outputsDir: string): { files: number; mismatches: string[] } {
  const mismatches: string[] = [];
  for (const row of rows) {
    const data = (() => {
      try {
        return readFileSync(resolve(outputsDir, row.path));
      } catch {
        return undefined;
      }
    })();
    const sha = data && createHash('sha256').update(data).digest('hex');
    if (!data || sha !== row.sha256 || data.length !== row.bytes) mismatches.push(row.path);
  }
  return { files: rows.length, mismatches };
}

const roundCredits = ([row]: { total: number | null }[]) => Math.round((row?.total ?? 0) * 100) / 100;
// Number(): a count read straight from PostgreSQL (a database of a test's own server, pgRows) comes as text.
const byStatus = (rows: { status: string; n: number | string }[]) => Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));

/** Every recorded output: its file exists and its sha256 is the one the state database holds (SQLite). */
export function verifyOutputs(project: Project, outputsDir: string): { files: number; mismatches: string[] } {
  return outputsAgainstFiles(project.query<OutputRow>(OUTPUTS), outputsDir);
}

/** Sum of what the state database says was spent (SQLite). */
export function creditsInState(project: Project): number {
  return roundCredits(project.query(CREDITS));
}

/** The jobs per status of the state database (SQLite). */
export function statusCounts(project: Project): Record<string, number> {
  return byStatus(project.query(STATUSES));
}

/** verifyOutputs on either store. */
export async function checkOutputs(project: Project, outputsDir: string): Promise<{ files: number; mismatches: string[] }> {
  return outputsAgainstFiles(await project.rows<OutputRow>(OUTPUTS), outputsDir);
}

/** creditsInState on either store. */
export async function sumCredits(project: Project): Promise<number> {
  return roundCredits(await project.rows(CREDITS));
}

/** statusCounts on either store (or on any database `rows` reads). */
export async function countStatuses(project: Pick<Project, 'rows'>): Promise<Record<string, number>> {
  return byStatus(await project.rows(STATUSES));
}
