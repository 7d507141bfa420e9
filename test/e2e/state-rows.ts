import Database from 'better-sqlite3';
import pg from 'pg';

/** The two stores an end-to-end test can run on. */
export type StoreKind = 'sqlite' | 'postgres';

/** Both stores, for `describe.each(STORES)`. */
export const STORES: readonly StoreKind[] = ['sqlite', 'postgres'];

/**
 * A project's state read (or, for a test that stages a damaged or hand-edited state, written)
 * directly — never through reelpipe's own code — with one SQL text for both stores: `?`
 * placeholders, and whatever both dialects share.
 */
export interface StateRows {
  /** The rows a query returns; PostgreSQL's bigint and numeric values come back as numbers, as SQLite's do. */
  rows<T>(sql: string, ...params: unknown[]): Promise<T[]>;
  /** Runs a statement that changes the state; returns how many rows it changed. */
  execute(sql: string, ...params: unknown[]): Promise<number>;
  close(): Promise<void>;
}

/** The SQLite state file at `path`, opened for each statement (the CLI's runs between them see no open handle). */
export function sqliteRows(path: string): StateRows {
  const withDb = <R>(readonly: boolean, use: (db: Database.Database) => R): R => {
    const db = new Database(path, { readonly, fileMustExist: true });
    try {
      return use(db);
    } finally {
      db.close();
    }
  };
  return {
    rows: async <T>(sql: string, ...params: unknown[]) => withDb(true, (db) => db.prepare(sql).all(...params) as T[]),
    execute: async (sql, ...params) => withDb(false, (db) => db.prepare(sql).run(...params).changes),
    close: async () => undefined,
  };
}

/** OIDs of int8 (count(*), bigint columns) and numeric (sum of bigints), which pg returns as strings. */
const AS_NUMBER = new Set([20, 1700]);
const types = {
  getTypeParser: ((oid: number, format?: string) =>
    AS_NUMBER.has(oid) ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

/** The PostgreSQL database at `url`, on one connection opened at the first statement and ended by `close`. */
export function postgresRows(url: string): StateRows {
  let client: Promise<pg.Client> | undefined;
  const connected = () => {
    client ??= (async () => {
      const c = new pg.Client({ connectionString: url, types });
      await c.connect();
      return c;
    })();
    return client;
  };
  const query = async (sql: string, params: unknown[]) => (await connected()).query(pgPlaceholders(sql), params);
  return {
    rows: async <T>(sql: string, ...params: unknown[]) => (await query(sql, params)).rows as T[],
    execute: async (sql, ...params) => (await query(sql, params)).rowCount ?? 0,
    close: async () => {
      const open = client;
      client = undefined;
      await (await open)?.end();
    },
  };
}

/** `?` placeholders as PostgreSQL's `$1`, `$2`, …; a `?` inside a quoted string is left alone. */
export function pgPlaceholders(sql: string): string {
  let n = 0;
  return sql.replace(/'(?:[^']|'')*'|\?/g, (match) => (match === '?' ? `$${++n}` : match));
}
