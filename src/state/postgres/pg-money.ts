import { CHARGE_COLUMNS, RUN_CHARGE_COLUMNS, sumMoney, sumRunCredits, type ChargeValues, type CreditPair, type MoneySums, type RunChargeValues } from '../money-sums.js';
import { planScope, type PlanJobs, type PlanScope } from '../plan-scope.js';
import { JOB_MONEY_COLUMNS, recordedJobMoney, type JobMoneyValues, type RecordedJobMoney } from '../recorded-money.js';
import type { Tx } from './pg-connection.js';

/**
 * The money of a manifest on PostgreSQL, for the reader and the Store alike: its charges read
 * here, summed by money-sums.ts as SQLite's are (sqlite/money.ts), so both stores give the same
 * figures. Each function takes anything that runs a statement (`Tx`, or a PgDb); give the Store's
 * transaction to read inside it.
 */

/**
 * Every charge of the manifest, by job (byte-wise) then as they were made: the order SQLite's
 * scan of its (manifest, job_key) index gives, so the sums add in the same order — the same
 * floating-point figures to the last bit — and the maps list their jobs alike.
 */
export async function pgCharges(tx: Tx, manifest: string): Promise<ChargeValues[]> {
  return tx.values<ChargeValues>(`SELECT ${CHARGE_COLUMNS} FROM charges WHERE manifest = $1 ORDER BY job_key COLLATE "C", id`, [manifest]);
}

/** The manifest's totals and each job's own figure, against the plan `scope` (money-sums.ts sumMoney). */
export async function readPgMoney(tx: Tx, manifest: string, scope: PlanScope): Promise<MoneySums> {
  return sumMoney(await pgCharges(tx, manifest), scope);
}

/** What each of `runs` was charged for the remote jobs it sent (as sqlite/money.ts readRunCredits). */
export async function readPgRunCredits(tx: Tx, manifest: string, runs: readonly number[]): Promise<Map<number, CreditPair>> {
  return sumRunCredits(await tx.values<RunChargeValues>(
    `SELECT ${RUN_CHARGE_COLUMNS} FROM charges WHERE manifest = $1 AND run_id = ANY($2::bigint[]) ORDER BY job_key COLLATE "C", id`, [manifest, runs],
  ));
}

/** The budget gate's view of the manifest's money for the plan's `jobs` (recorded-money.ts). */
export async function readPgJobMoney(tx: Tx, manifest: string, jobs: PlanJobs): Promise<RecordedJobMoney> {
  const scope = planScope(jobs);
  const rows = await tx.values<JobMoneyValues>(`SELECT ${JOB_MONEY_COLUMNS} FROM jobs WHERE manifest = $1`, [manifest]);
  return recordedJobMoney(rows, scope, (await readPgMoney(tx, manifest, scope)).totals);
}
