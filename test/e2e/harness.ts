import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { runCli } from '../helpers/cli.js';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';

/** Sandbox speed for the end-to-end tests, and the runner's matching time scale. */
export const SPEED = 2000;
export const TIME_SCALE = String(1 / SPEED);

/** A temporary project folder with a sandbox on port 0 and the CLI pointed at it. */
export interface Project {
  dir: string;
  sandbox: Sandbox;
  write(name: string, text: string): string;
  /** Runs `reelpipe ARGS` in the project (or in `cwd`) against the sandbox, with `env` added. */
  cli(args: string[], env?: Record<string, string>, cwd?: string): ReturnType<typeof runCli>;
  /** The rows of the project's state database (state/reelpipe.db), read directly (not through our code). */
  query<T>(sql: string, ...params: unknown[]): T[];
  /** The same, of the state database at `dbPath`. */
  queryAt<T>(dbPath: string, sql: string, ...params: unknown[]): T[];
  close(): Promise<void>;
}

export async function openProject(options: SandboxOptions = {}): Promise<Project> {
  const dir = mkdtempSync(join(tmpdir(), 'reelpipe-e2e-'));
  const sandbox = await startSandbox({ port: 0, speed: SPEED, seed: 7, credits: 1_000_000, ...options });
  const env = { REELPIPE_BASE_URL: sandbox.url, REELPIPE_API_ID: 'e2e-api-id', REELPIPE_API_KEY: 'e2e-api-key-secret' };
  return {
    dir,
    sandbox,
    write: (name, text) => {
      writeFileSync(join(dir, name), text);
      return join(dir, name);
    },
    cli: (args, extra = {}, cwd = dir) => runCli(args, { cwd, env: { ...env, ...extra }, timeout: 60_000 }),
    query: <T>(sql: string, ...params: unknown[]) => queryAt<T>(join(dir, 'state', 'reelpipe.db'), sql, ...params),
    queryAt,
    close: async () => {
      await sandbox.close();
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

/** Every recorded output: its file exists and its sha256 is the one the state database holds. */
export function verifyOutputs(project: Project, outputsDir: string): { files: number; mismatches: string[] } {
  const rows = project.query<{ path: string; sha256: string; bytes: number }>('SELECT path, sha256, bytes FROM outputs');
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

/** Sum of what the state database says was spent. */
export function creditsInState(project: Project): number {
  const [row] = project.query<{ total: number | null }>('SELECT sum(coalesce(credits_used, 0) + credits_prior) AS total FROM jobs');
  return Math.round((row?.total ?? 0) * 100) / 100;
}

export function statusCounts(project: Project): Record<string, number> {
  const rows = project.query<{ status: string; n: number }>('SELECT status, count(*) AS n FROM jobs GROUP BY status');
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}
