import { DB_NOW, NOW, type Steps } from '../account-sql.js';
import type { Tx } from './pg-connection.js';

/** The database's clock in epoch milliseconds: `$dbnow` on PostgreSQL (account-sql.ts). */
const CLOCK_TIMESTAMP = '(extract(epoch from clock_timestamp()) * 1000)::bigint';

/**
 * Runs the account's steps (account-sql.ts) in the caller's transaction: `$dbnow` the database's
 * clock, `$now` the store's (`now`), written in as a number.
 */
export async function pgSteps<T>(tx: Pick<Tx, 'query'>, steps: Steps<T>, now: number): Promise<T> {
  const times = (sql: string) => sql.replaceAll(DB_NOW, CLOCK_TIMESTAMP).replaceAll(NOW, `${Math.trunc(now)}::bigint`);
  let next = steps.next();
  while (!next.done) next = steps.next(await tx.query<Record<string, unknown>>(times(next.value.sql), [...next.value.params]));
  return next.value;
}

/** The account's row locked to the end of the gate's transaction: two processes' intents are judged one after the other. */
export const LOCK_ACCOUNT = ' FOR UPDATE';
