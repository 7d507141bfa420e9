import { systemClock, type Clock } from '../../util/clock.js';
import { DB_NOW, NOW, type Steps } from '../account-sql.js';
import type { Tx } from './pg-connection.js';
import { DATABASE_NOW } from './pg-lock.js';

/**
 * Runs the account's steps (account-sql.ts) in the caller's transaction: `$now` the store's clock
 * and `$dbnow` the database's, as lock times are told (pg-lock.ts: the database's on the system
 * clock, an injected clock's in tests), each written in.
 */
export async function pgSteps<T>(tx: Pick<Tx, 'query'>, steps: Steps<T>, clock: Clock): Promise<T> {
  const now = `${Math.trunc(clock.now())}::bigint`;
  const times = (sql: string) => sql.replaceAll(DB_NOW, clock === systemClock ? DATABASE_NOW : now).replaceAll(NOW, now);
  let next = steps.next();
  while (!next.done) next = steps.next(await tx.query<Record<string, unknown>>(times(next.value.sql), [...next.value.params]));
  return next.value;
}

/** The account's row locked to the end of the gate's transaction: two processes' intents are judged one after the other. */
export const LOCK_ACCOUNT = ' FOR UPDATE';
