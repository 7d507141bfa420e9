import { StateError } from '../../errors.js';
import { scrubSecrets, type EventType } from '../sqlite/events.js';
import type { Clock } from '../../util/clock.js';
import type { Fence } from '../lock/fence.js';
import type { Tx } from './pg-connection.js';
import { Sql } from './pg-sql.js';
import type { Outcome } from './pg-wave.js';

/**
 * The event log on PostgreSQL: the same rows as SQLite's (sqlite/events.ts), secrets scrubbed
 * the same way. Events are appended inside the transaction of the operation they tell of.
 */

/** What an operation writes for: the time (the store's clock), the run, and the manifest (null: none chosen yet). */
export interface OpScope {
  now: number;
  /** The store's clock (`now` is its time as the operation started): whose time the account's `$dbnow` is (pg-account.ts). */
  clock: Clock;
  /** The lock (and its token) the manifest's job writes are fenced by (lock/fence.ts); null: not fenced. */
  fence: Fence | null;
  runId: number | null;
  manifest: string | null;
}

/** One event to append. */
export interface EventRow {
  key: string | null;
  type: EventType;
  data?: Record<string, unknown> | undefined;
}

/** An event's data as the log keeps it: secrets scrubbed, as JSON text (null: none). */
export const eventText = (data: Record<string, unknown> | undefined): string | null => (data === undefined ? null : JSON.stringify(scrubSecrets(data)));

/** Adds to `sql` the CTE `name` that appends `events`, in their order. */
export function eventsCte(sql: Sql, scope: OpScope, events: readonly EventRow[], name = 'ev'): void {
  const rows = events.map((e, ord) => ({ ord, key: e.key, type: e.type, data: eventText(e.data) }));
  sql.with(name, `INSERT INTO events (at, run_id, manifest, job_key, type, data)
    SELECT ${sql.shared('now', scope.now, 'bigint')}, ${sql.$(scope.runId, 'bigint')}, ${sql.$(scope.manifest, 'text')}, e.key, e.type, e.data
    FROM ${sql.rows(rows, 'ord int, key text, type text, data text', 'e')} ORDER BY e.ord`);
}

/** Appends events on their own, in the caller's transaction. */
export async function appendEvents(tx: Tx, scope: OpScope, events: readonly EventRow[]): Promise<void> {
  const sql = new Sql();
  eventsCte(sql, scope, events);
  await tx.query(sql.text('SELECT 1'), sql.params);
}

/** `scope` with its manifest, or StateError when none was chosen. */
export function withManifest(scope: OpScope): OpScope & { manifest: string } {
  if (scope.manifest === null) throw new StateError('no manifest chosen: call useManifest or syncPlan first');
  return scope as OpScope & { manifest: string };
}

/** The values of a wave run inside an operation: the first error rejects the operation (and its transaction) whole. */
export async function answers<T>(outcomes: Promise<Outcome[]>): Promise<T[]> {
  return (await outcomes).map((outcome) => {
    if ('error' in outcome) throw outcome.error;
    return outcome.value as T;
  });
}
