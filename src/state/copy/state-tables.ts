/** One table's rows as both stores give them: column name → value (numbers, strings, nulls). */
export type Row = Record<string, unknown>;

/**
 * A state seen as tables, for `reelpipe state copy`: the one place where a whole state is read and
 * written table by table, below the Store's operations. Both stores hold the same tables, columns
 * and types (test/state/postgres/schema-match.test.ts), so a row read from one is a row of the other.
 */
export interface StateTables {
  /** The state as messages name it (an address without its password). */
  readonly shown: string;
  /** Rows of `table` in the order of `order`, `size` at a time. */
  read(table: string, order: readonly string[], size: number): AsyncIterable<Row[]>;
  count(table: string): Promise<number>;
  /** The run locks held in it: a state being written is not copied. */
  locks(): Promise<{ name: string; host: string; pid: number }[]>;
  /** Sums of the money columns, to compare both sides exactly after the copy. */
  credits(): Promise<CreditSums>;
  /**
   * Writes every row `fill` puts, in ONE transaction: a copy that fails halfway leaves the state
   * as empty as it was. `meta` replaces the state's own (the copy is the same state, moved: the
   * outputs folder's owner record names its id). Counters (ids) continue after the copied ones.
   */
  fill(fill: (put: (table: string, rows: readonly Row[]) => Promise<void>) => Promise<void>): Promise<void>;
  close(): Promise<void>;
}

export interface CreditSums {
  charged: number;
  reserved: number;
  refunded: number;
  used: number;
}

/**
 * Every table a state holds but schema_version (each side is migrated to this build's schema),
 * parents before children (foreign keys), each with the key that orders its rows. A test checks
 * this list against the schema, so a new table cannot be left behind by a copy.
 */
export const COPIED_TABLES: readonly { table: string; order: readonly string[] }[] = [
  { table: 'meta', order: ['key'] },
  { table: 'runs', order: ['id'] },
  { table: 'jobs', order: ['manifest', 'key'] },
  { table: 'attempts', order: ['id'] },
  { table: 'outputs', order: ['manifest', 'job_key', 'idx'] },
  { table: 'job_results', order: ['manifest', 'job_key'] },
  { table: 'job_items', order: ['manifest', 'job_key', 'idx'] },
  { table: 'charges', order: ['id'] },
  { table: 'events', order: ['id'] },
  { table: 'hook_runs', order: ['id'] },
  { table: 'locks', order: ['name'] },
  { table: 'catalogues', order: ['service', 'name'] },
  { table: 'account', order: ['id'] },
];

/** The SQL text of the sums compared after a copy: the same in both dialects. */
export const CREDIT_SUMS_SQL =
  'SELECT (SELECT coalesce(sum(charged), 0) FROM charges) AS charged, (SELECT coalesce(sum(reserved), 0) FROM charges) AS reserved, ' +
  '(SELECT coalesce(sum(refunded), 0) FROM charges) AS refunded, (SELECT coalesce(sum(credits_used), 0) FROM jobs) AS used';
