import type { EventType } from '../sqlite/events.js';
import type { JobChange } from '../job-change.js';
import { moveEffects } from '../job-moves.js';
import type { JobStatus } from '../job-status.js';
import { CHANGE_COLUMNS } from '../sqlite/job-change.js';
import type { RawJobRow } from '../sqlite/job-row.js';
import { openChargesCte } from './pg-charges.js';
import type { MovePart, Parts } from './pg-parts.js';
import type { Sql } from './pg-sql.js';

/**
 * A job's moves on PostgreSQL: the machine of job-status.ts checked against the row read under its
 * lock, then every move of a round written by one UPDATE of the jobs table (each row's columns
 * chosen by `sets`), with what a move writes beside it (job-moves.ts): its last read, its newest
 * attempt's end, its open charge.
 */

/** Each column a change may set, with its type as the JSON rows are read. */
const COLUMN_TYPES: Record<string, string> = {
  remote_id: 'text', remote_status: 'text', credits_used: 'float8', credits_prior: 'float8', credits_reserved: 'float8', failed_reason: 'text',
  doubt_reason: 'text', request: 'text', path_id: 'text', submitted_at: 'bigint', finished_at: 'bigint',
};
const CHANGES = Object.entries(CHANGE_COLUMNS) as [keyof typeof CHANGE_COLUMNS, string][];
for (const [, column] of CHANGES) if (!COLUMN_TYPES[column]) throw new Error(`pg-job-moves.ts: no type for the jobs column ${column}`);

export interface MoveEvent {
  type: EventType;
  data?: Record<string, unknown> | undefined;
  /** The event names the attempt the same operation opens (an intent). */
  attemptOf?: string;
}

/**
 * Plans the move of the job read as `row` to `to`, setting `change`, logged as `event`; throws
 * StateError on a move the machine forbids (nothing of the operation is written then). `bump`: the
 * move opens an attempt (its count grows).
 */
export function planMove(parts: Parts, row: RawJobRow, to: JobStatus, change: JobChange, event: MoveEvent, bump = 0): void {
  const { key } = row;
  const effects = moveEffects(key, row.status as JobStatus, to, change, row.doubt_reason);
  const part: MovePart = { key, status: to, sets: [], bump, clear_result: false };
  for (const [field, column] of CHANGES) {
    const value = effects.change[field];
    if (value === undefined) continue;
    part.sets.push(column);
    part[column] = value !== null && typeof value === 'object' ? JSON.stringify(value) : value;
  }
  if (change.result !== undefined) {
    part.clear_result = true;
    parts.results.push({ key, result: change.result === null ? null : JSON.stringify(change.result) });
  }
  parts.moves.push(part);
  if (change.creditsReserved !== undefined || change.remoteId || effects.settle !== undefined) {
    parts.charges.push({ key, reserved: change.creditsReserved ?? null, remote_id: change.remoteId || null, settle: effects.settle !== undefined, charged: effects.settle ?? null });
  }
  if (effects.ended) parts.ends.push({ key, ended: effects.ended, reason: change.failedReason ?? null });
  parts.events.push({ key, type: event.type, data: { from: row.status, to, ...event.data }, ...(event.attemptOf === undefined ? {} : { attemptOf: event.attemptOf }) });
}

/**
 * The row `read` (under its lock) as the round's UPDATE leaves it: its status, time and the
 * columns the move sets. No RETURNING is needed — nobody else writes a locked row — so the
 * statement can go with the COMMIT (PgDb.tx commitWith).
 */
export function movedRow(read: RawJobRow, part: MovePart, now: number): RawJobRow {
  const row: Record<string, unknown> = { ...read, status: part.status, updated_at: now, attempt_count: read.attempt_count + part.bump };
  if (part.clear_result) row.result = null;
  for (const column of part.sets) row[column] = part[column];
  return row as unknown as RawJobRow;
}

/** Adds the round's moves to `sql` as CTEs, with their last reads, attempts' ends and open charges. */
export function movesCtes(sql: Sql, manifest: string, now: number, parts: Parts): void {
  const m = (): string => sql.shared('manifest', manifest, 'text');
  if (parts.moves.length > 0) {
    const columns = CHANGES.map(([, column]) => `${column} ${COLUMN_TYPES[column]}`).join(', ');
    const sets = CHANGES.map(([, c]) => `${c} = CASE WHEN '${c}' = ANY(v.sets) THEN v.${c} ELSE jobs.${c} END`).join(',\n      ');
    sql.with('moved', `UPDATE jobs SET status = v.status, updated_at = ${sql.shared('now', now, 'bigint')}, attempt_count = jobs.attempt_count + v.bump,
      result = CASE WHEN v.clear_result THEN NULL ELSE jobs.result END,
      ${sets}
      FROM ${sql.rows(parts.moves, `key text, status text, sets text[], bump bigint, clear_result boolean, ${columns}`)}
      WHERE jobs.manifest = ${m()} AND jobs.key = v.key`);
  }
  const kept = parts.results.filter((r) => r.result !== null);
  if (kept.length > 0) {
    sql.with('kept', `INSERT INTO job_results (manifest, job_key, result) SELECT ${m()}, v.key, v.result FROM ${sql.rows(kept, 'key text, result text')}
      ON CONFLICT (manifest, job_key) DO UPDATE SET result = excluded.result`);
  }
  const dropped = parts.results.filter((r) => r.result === null).map((r) => r.key);
  if (dropped.length > 0) sql.with('unkept', `DELETE FROM job_results WHERE manifest = ${m()} AND job_key = ANY(${sql.$(dropped, 'text[]')})`);
  if (parts.ends.length > 0) {
    sql.with('ended', `UPDATE attempts SET ended = v.ended, ended_reason = v.reason
      FROM ${sql.rowsWith(parts.ends, 'key text, ended text, reason text', `(SELECT max(id) FROM attempts o WHERE o.manifest = ${m()} AND o.job_key = v.key)`, 'attempt_id')}
      WHERE attempts.id = v.attempt_id`);
  }
  if (parts.charges.length > 0) openChargesCte(sql, manifest, now, parts.charges);
}
