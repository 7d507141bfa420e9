import type { Parts } from './pg-parts.js';
import type { Sql } from './pg-sql.js';

/**
 * The charges ledger on PostgreSQL (sqlite/charges.ts tells a charge's life and why it is never
 * deleted). Each function adds one multi-row CTE to a statement of the wave: the rows of many jobs
 * in one go. Every one runs inside the transaction that moves the job or its attempt, the job's
 * row locked first.
 */

/** The charges of the attempts a CTE `closed` (id, nothing, remote_id) closed: none if it created nothing, else naming its remote job. */
export const CLOSED_CHARGES = (now: string) => `UPDATE charges SET
    state = CASE WHEN c.nothing THEN 'none' ELSE charges.state END,
    reserved = CASE WHEN c.nothing THEN 0 ELSE charges.reserved END,
    charged = CASE WHEN c.nothing THEN 0 ELSE charges.charged END,
    settled_at = CASE WHEN c.nothing THEN ${now} ELSE charges.settled_at END,
    remote_id = CASE WHEN c.nothing THEN charges.remote_id ELSE c.remote_id END
  FROM closed c
  WHERE charges.attempt_id = c.id AND (c.nothing AND charges.state = 'open' OR NOT c.nothing AND c.remote_id IS NOT NULL)`;

/** Refunds recorded for the items of a job's remote job. */
export function refundsCte(sql: Sql, manifest: string, refunds: Parts['refunds']): void {
  sql.with('refunded', `UPDATE charges SET refunded = v.credits, refund_derived = v.derived
    FROM ${sql.rows(refunds, 'key text, remote_id text, credits float8, derived bigint')}
    WHERE charges.manifest = ${sql.shared('manifest', manifest, 'text')} AND charges.job_key = v.key AND charges.remote_id = v.remote_id`);
}

/** The settled charges of jobs planned again no longer count toward their own figure: `retried`. */
export function lapsesCte(sql: Sql, manifest: string, now: number, keys: readonly string[]): void {
  sql.with('lapsed', `UPDATE charges SET lapsed = 'retried', lapsed_at = ${sql.shared('now', now, 'bigint')}
    WHERE manifest = ${sql.shared('manifest', manifest, 'text')} AND job_key = ANY(${sql.$(keys, 'text[]')}) AND lapsed IS NULL AND state <> 'open'`);
}

/** A move's effect on the job's open charge (its newest): the reservation it holds, the remote job it names, its settlement. */
export function openChargesCte(sql: Sql, manifest: string, now: number, charges: Parts['charges']): void {
  const at = sql.shared('now', now, 'bigint');
  sql.with('charged', `UPDATE charges SET
      reserved = coalesce(v.reserved, charges.reserved),
      remote_id = coalesce(v.remote_id, charges.remote_id),
      state = CASE WHEN v.settle THEN 'settled' ELSE charges.state END,
      charged = CASE WHEN v.settle THEN v.charged ELSE charges.charged END,
      settled_at = CASE WHEN v.settle THEN ${at} ELSE charges.settled_at END
    FROM ${sql.rowsWith(charges, 'key text, reserved float8, remote_id text, settle boolean, charged float8',
      `(SELECT max(id) FROM charges o WHERE o.manifest = ${sql.shared('manifest', manifest, 'text')} AND o.job_key = v.key AND o.state = 'open')`, 'charge_id')}
    WHERE charges.id = v.charge_id`);
}
