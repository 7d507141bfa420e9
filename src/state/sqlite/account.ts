import type Database from 'better-sqlite3';
import type { Query, Steps } from '../account-sql.js';
import { statement } from './statements.js';

/**
 * Runs the account's steps (account-sql.ts) on SQLite, at once, inside the caller's transaction:
 * each statement's `$n` placeholders become `?` (their values put in the order they appear) and
 * `$now` and `$dbnow` the store's clock (one host's: it is the database's too).
 */
export function sqliteSteps<T>(db: Database.Database, steps: Steps<T>, now: () => number): T {
  let next = steps.next();
  while (!next.done) next = steps.next(run(db, next.value, now));
  return next.value;
}

function run(db: Database.Database, query: Query, now: () => number): Record<string, unknown>[] {
  const params: unknown[] = [];
  const sql = query.sql.replace(/\$(\d+|now|dbnow)/g, (_, n: string) => {
    params.push(/^\d+$/.test(n) ? query.params[Number(n) - 1] : now());
    return '?';
  });
  const prepared = statement(db, sql);
  if (prepared.reader) return prepared.all(...params) as Record<string, unknown>[];
  prepared.run(...params);
  return [];
}
