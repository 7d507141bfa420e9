import { hostname } from 'node:os';
import pg from 'pg';
import { CommitUnknownError, faultKind, pgFault } from './pg-faults.js';
import { addressToOpen, parsePgAddress, type PgAddress } from './pg-url.js';

/** One statement's answer rows, as SQLite gives them: BIGINT and NUMERIC read back as numbers. */
export type Rows<R> = R[];

/** What a transaction's body is given: one statement at a time, on the transaction's connection. */
export interface Tx {
  query<R = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<Rows<R>>;
  /**
   * Each row as its values, in the order of the statement's columns: what the shared mappers take
   * (as SQLite's raw rows). Why not objects: a 10,000-row read made 10,000 of them only to take
   * their values out again (the driver's `rowMode: 'array'`).
   */
  values<V extends unknown[]>(sql: string, params?: readonly unknown[]): Promise<V[]>;
  /** The rows of the statement sent with BEGIN (`tx`'s `lead`), when one was. */
  readonly led?: Rows<Record<string, unknown>>;
  /**
   * The body's last statement, whose rows it does not need (no parameters: its values written in,
   * escaped): sent with the COMMIT, in one round trip, once the body has returned. Given only by PgDb.tx.
   */
  commitWith?(sql: string): void;
}

/** How long the connection may be lost before a command gives up (exit 74). */
const RECONNECT_BOUND_MS = 30_000;
/** How long the first connection may take: an unreachable database ends the command (exit 74) inside 10 s. */
const FIRST_CONNECT_BOUND_MS = 6_000;

// Epoch milliseconds and counts are BIGINT, sums of them NUMERIC: read as numbers so rows compare
// with SQLite's exactly. Safe: epoch ms and credit sums stay far below 2^53.
const INT8 = 20;
const NUMERIC = 1700;
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8 || oid === NUMERIC ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/**
 * A pool of connections to one PostgreSQL state, and the only code that sends it statements.
 *
 * Faults: a statement that fails because the link dropped (a server restart, a lost socket) is
 * tried again on a fresh connection, for up to RECONNECT_BOUND_MS, when trying again is safe — a
 * read, or a transaction whose COMMIT was not sent (PostgreSQL rolled it back). A COMMIT whose
 * answer was lost is CommitUnknownError: the caller reads back. Past the bound, exit 74.
 *
 * Every round trip to the server is counted (`roundTrips`): the bench prints them per job.
 */
/** How long a transaction of ours may sit idle before the server ends it (see connect). */
export const IDLE_IN_TRANSACTION_MS = 15_000;

export class PgDb {
  roundTrips = 0;
  private closed = false;
  /** A statement waited its whole bound for the database in vain (see retried). */
  private gone = false;

  private constructor(
    private readonly pool: pg.Pool,
    readonly address: PgAddress,
    private readonly sleep: (ms: number) => Promise<void>,
  ) {}

  /** Connects to the state at `location` (checked with one statement), or throws a located error: exit 2 or 74. */
  static async connect(
    location: string,
    where = '--state',
    sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms)),
    options: { exitOnIdle?: boolean } = {},
  ): Promise<PgDb> {
    const address = parsePgAddress(addressToOpen(location), where);
    const ssl = address.params.get('sslmode');
    const pool = new pg.Pool({
      host: address.host,
      port: address.port,
      database: address.database,
      ...(address.user !== undefined ? { user: address.user } : {}),
      ...(address.password !== undefined ? { password: address.password } : {}),
      ...(ssl && ssl !== 'disable' ? { ssl: ssl === 'require' || ssl === 'prefer' ? { rejectUnauthorized: false } : true } : {}),
      max: 8,
      connectionTimeoutMillis: 5_000,
      idleTimeoutMillis: 10_000,
      statement_timeout: 30_000,
      // Our transactions never wait on anything but the database and our own CPU (none is held
      // across a request to the service), so one idle for 15 s belongs to a process frozen mid-way
      // (SIGSTOP, a paused VM): the server ends it, and its row locks — the run lock's row among
      // them (lock/fence.ts) — go to the run taking its manifest over, well within a statement's
      // own timeout.
      idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_MS,
      application_name: `reelpipe/${hostname()}`.slice(0, 63),
      types,
      // A pool kept for a process's reads (pg-reads-open.ts) never holds the process open.
      ...(options.exitOnIdle ? { allowExitOnIdle: true } : {}),
    });
    // A connection that dies while idle in the pool (a server restart) is dropped by the pool;
    // without a handler its 'error' would end the process.
    pool.on('error', () => undefined);
    const db = new PgDb(pool, address, sleep);
    try {
      await db.retried('connecting', FIRST_CONNECT_BOUND_MS, () => pool.query('SELECT 1'));
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw error;
    }
    return db;
  }

  /** The database as messages, logs and records name it: `postgres://user@host:port/db`. */
  get shown(): string {
    return this.address.shown;
  }

  /** One statement outside any transaction (a read, or a write that is whole in itself); retried on a dropped link. */
  async query<R = Record<string, unknown>>(sql: string, params: readonly unknown[] = []): Promise<Rows<R>> {
    return (await this.statement(sql, params, false)) as R[];
  }

  async values<V extends unknown[]>(sql: string, params: readonly unknown[] = []): Promise<V[]> {
    return (await this.statement(sql, params, true)) as V[];
  }

  private async statement(sql: string, params: readonly unknown[], asValues: boolean): Promise<unknown[]> {
    const result = await this.retried('reading the state', RECONNECT_BOUND_MS, () => {
      this.roundTrips++;
      return asValues ? this.pool.query({ text: sql, values: params as unknown[], rowMode: 'array' }) : this.pool.query(sql, params as unknown[]);
    });
    return result.rows as unknown[];
  }

  /**
   * Runs `body` in one transaction and commits it: durably (`synchronous_commit = on`, the commit
   * on the server's disk before the answer) when `durable`, else asynchronously (as SQLite's
   * NORMAL: a server crash may lose the last moments, a process crash nothing). A link lost before
   * the COMMIT was sent runs it again on a fresh connection; lost during the COMMIT, CommitUnknownError.
   * `lead`: a statement without parameters (its values written in, escaped) sent in the same round
   * trip as BEGIN, its rows given as `tx.led` — a transaction that starts by locking its rows saves
   * a round trip; `tx.commitWith` does the same for the last statement and COMMIT.
   */
  async tx<T>(body: (tx: Tx) => Promise<T>, options: { durable?: boolean; doing?: string; lead?: string } = {}): Promise<T> {
    const doing = options.doing ?? 'writing the state';
    return this.retried(doing, RECONNECT_BOUND_MS, async () => {
      const client = await this.pool.connect();
      // A link that drops while the client is checked out is also emitted as an 'error' event, which
      // the pool listens for only on idle clients: unheard, it would end the process. The statement
      // on its way rejects with it, and that is where it is handled.
      const heard = (): void => undefined;
      client.on('error', heard);
      let committing = false;
      let last: string | undefined;
      let broken: unknown;
      try {
        this.roundTrips++;
        const begun = await client.query(`BEGIN; SET LOCAL synchronous_commit = ${options.durable ? 'on' : 'off'}${options.lead ? `; ${options.lead}` : ''}`);
        const tx: Tx = {
          ...(options.lead ? { led: (begun as unknown as pg.QueryResult[]).at(-1)!.rows as Record<string, unknown>[] } : {}),
          query: async <R>(sql: string, params: readonly unknown[] = []) => {
            this.roundTrips++;
            return (await client.query(sql, params as unknown[])).rows as R[];
          },
          values: async <V extends unknown[]>(sql: string, params: readonly unknown[] = []) => {
            this.roundTrips++;
            return (await client.query({ text: sql, values: params as unknown[], rowMode: 'array' })).rows as V[];
          },
          commitWith: (sql: string) => {
            last = sql;
          },
        };
        const value = await body(tx);
        committing = true;
        this.roundTrips++;
        await client.query(last === undefined ? 'COMMIT' : `${last}; COMMIT`);
        return value;
      } catch (error) {
        broken = error;
        if (committing && faultKind(error) === 'link') {
          throw new CommitUnknownError(`the state database ${this.shown} dropped the connection while ${doing} committed: read back before going on`, { cause: error });
        }
        // Harmless after a COMMIT that failed (no transaction is open then), needed after a last
        // statement that failed before its COMMIT (the transaction is left aborted).
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.off('error', heard);
        client.release(broken !== undefined && faultKind(broken) === 'link' ? (broken as Error) : undefined);
      }
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }

  /**
   * `step` again on a dropped link, with growing pauses, until `boundMs` has passed; then the
   * located fault. Once one statement has waited its whole bound in vain the database is taken as
   * gone: the statements after it (a run's last records on its way out) are tried once each, not
   * given a bound of their own — a run that lost its database ends within its bound, not within
   * one bound per write. The first statement that gets through takes that back.
   */
  private async retried<T>(doing: string, boundMs: number, step: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + (this.gone ? 0 : boundMs);
    for (let pause = 100; ; pause = Math.min(pause * 2, 2_000)) {
      try {
        const value = await step();
        this.gone = false;
        return value;
      } catch (error) {
        if (error instanceof CommitUnknownError) throw error;
        const link = faultKind(error) === 'link';
        if (!link || this.closed || Date.now() + pause > deadline) {
          if (link) this.gone = true;
          throw pgFault(this.shown, error, doing);
        }
        await this.sleep(pause);
      }
    }
  }
}
