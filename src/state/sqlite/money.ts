import type Database from 'better-sqlite3';
import { CHARGE_COLUMNS, RUN_CHARGE_COLUMNS, sumMoney, sumRunCredits, type ChargeValues, type CreditPair, type MoneySums, type RunChargeValues } from '../money-sums.js';
import type { PlanScope } from '../plan-scope.js';
import { statement } from './statements.js';

/** The money of a manifest in SQLite: its charges (charges.ts) read here, summed by money-sums.ts. */

export { chargeStanding, costOf, type ChargeStanding, type CreditPair, type MoneySums, type MoneyTotals } from '../money-sums.js';
export { planScope, type PlanScope } from '../plan-scope.js';

const SELECT_CHARGES = `SELECT ${CHARGE_COLUMNS} FROM charges WHERE manifest = ?`;

const chargesOf = (db: Database.Database, manifest: string) => statement(db, SELECT_CHARGES, { raw: true }).iterate(manifest) as Iterable<ChargeValues>;

/** The manifest's totals and each job's own figure (money-sums.ts sumMoney). */
export function readMoney(db: Database.Database, manifest: string, scope: PlanScope): MoneySums {
  return sumMoney(chargesOf(db, manifest), scope);
}

/**
 * What each of `runs` was charged for the remote jobs it sent (money-sums.ts sumRunCredits): their
 * charges alone read, in the order the manifest's whole read sums them (readMoney), so a run's
 * figure is the one `money` gives it.
 */
export function readRunCredits(db: Database.Database, manifest: string, runs: readonly number[]): Map<number, CreditPair> {
  const rows = statement(db, SELECT_RUNS_CHARGES, { raw: true }).iterate(manifest, JSON.stringify(runs)) as Iterable<RunChargeValues>;
  return sumRunCredits(rows);
}

const SELECT_RUNS_CHARGES = `SELECT ${RUN_CHARGE_COLUMNS} FROM charges WHERE manifest = ? AND run_id IN (SELECT value FROM json_each(?)) ORDER BY job_key, id`;
