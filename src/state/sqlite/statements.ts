import type Database from 'better-sqlite3';

/**
 * Prepared statements, prepared once per connection and SQL text. Why: preparing costs about as
 * much as running a small statement, and the runner's hot paths (a transition, an event, a read of
 * a job) run thousands of times a run — a 2,000-job run spent 2 s of its 20 s preparing. A
 * statement that plucks or returns arrays (`raw`) is cached apart, since both change the statement itself.
 */
const CACHE = new WeakMap<Database.Database, Map<string, Database.Statement>>();

export function statement(db: Database.Database, sql: string, options: { pluck?: boolean; raw?: boolean } = {}): Database.Statement {
  let cache = CACHE.get(db);
  if (!cache) CACHE.set(db, (cache = new Map()));
  const key = options.pluck ? `pluck:${sql}` : options.raw ? `raw:${sql}` : sql;
  let prepared = cache.get(key);
  if (!prepared) {
    prepared = db.prepare(sql);
    if (options.pluck) prepared.pluck();
    else if (options.raw) prepared.raw();
    cache.set(key, prepared);
  }
  return prepared;
}
