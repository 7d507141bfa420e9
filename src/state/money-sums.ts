import { JobCosts } from './job-costs.js';
import { slotOf, type PlanScope } from './plan-scope.js';

/**
 * Every figure of money is a sum over the charges table (sqlite/charges.ts says how a charge
 * lives), summed here whatever store read the charges: a job's own cost, the manifest's totals,
 * a run's share, what counts against the cap. Unknown is never 0: a charge still open, or
 * settled without a reported cost, is counted apart as unknown.
 */

/** Known credits summed, and how many charges are of unknown cost (left out of `known`). */
export interface CreditPair {
  known: number;
  unknown: number;
}

/**
 * Where a charge stands against the plan a view is made for:
 *   current      a charge of a job of the plan (its own figure)
 *   retried      an earlier, failed attempt of a job of the plan (still its own figure)
 *   superseded   a job outside the plan in the place (step, output name) of a job of the plan: an edited row's earlier version
 *   removed      a job outside the plan in no place of it: its row or step left the manifest
 *   forgotten    `reelpipe forget` dropped its job
 */
export type ChargeStanding = 'current' | 'retried' | 'superseded' | 'removed' | 'forgotten';

/** The manifest's money, over every charge it ever had. */
export interface MoneyTotals {
  /** What the service charged, every charge of the manifest (net of refunds). */
  used: CreditPair;
  /** Of `used`, the known part of each standing that is not a job's own (shown apart). */
  apart: { superseded: number; removed: number; forgotten: number };
  /** Refunds recorded (failed items), and how much of that was derived from the price rule. */
  refunded: { total: number; derived: number };
  /**
   * What the budget counts as spent: known costs, and a settled cost the service never reported at
   * its reservation (assuming a job was free is the one mistake that can pass a cap unseen).
   */
  counted: number;
  /** Reservations of charges still open (jobs at the service, or in doubt), by job key. */
  held: Map<string, number>;
}

/** The manifest's totals and each job's own figure (null: of a cost not known): what `status` and the report show. */
export interface JobsMoney {
  totals: MoneyTotals;
  byJob: JobCosts;
}

/** JobsMoney, and what each run was charged for the remote jobs it sent: what a store's `money` answers. */
export interface MoneySums extends JobsMoney {
  runs: Map<number, CreditPair>;
}

/** The columns of a charge, in the order ChargeValues holds them: the same text in every store's SELECT. */
export const CHARGE_COLUMNS = 'job_key, step, output_name, state, reserved, charged, refunded, refund_derived, lapsed, run_id';

export type ChargeValues = [jobKey: string, step: string, outputName: string | null, state: string, reserved: number, charged: number | null, refunded: number, derived: number, lapsed: string | null, runId: number | null];

/** How `lapsed` and the plan place one charge (see ChargeStanding). */
export function chargeStanding(values: ChargeValues, scope: PlanScope): ChargeStanding {
  const [jobKey, step, outputName, , , , , , lapsed] = values;
  if (lapsed === 'forgotten') return 'forgotten';
  if (scope.keys.has(jobKey)) return lapsed === 'retried' ? 'retried' : 'current';
  return scope.slots.has(slotOf(step, outputName)) ? 'superseded' : 'removed';
}

/** A charge's known cost, or null: open, or settled without a reported cost. */
export const costOf = (state: string, charged: number | null): number | null => (state === 'none' ? 0 : state === 'settled' ? charged : null);

/** The totals of a manifest without a charge. */
export function noMoney(): MoneyTotals {
  return { used: { known: 0, unknown: 0 }, apart: { superseded: 0, removed: 0, forgotten: 0 }, refunded: { total: 0, derived: 0 }, counted: 0, held: new Map() };
}

/**
 * The manifest's totals over its `charges`, and each job's own figure (null: some charge of it is
 * of unknown cost), the plan's and its earlier versions' alike; a forgotten job has none (its
 * spend is apart). And what each run was charged (`runs`, as sumRunCredits), from the same pass:
 * a run's end needs both, and the charges are read once.
 */
export function sumMoney(charges: Iterable<ChargeValues>, scope: PlanScope): MoneySums {
  const totals = noMoney();
  const byJob = new JobCosts(scope.place, scope.keys.size);
  const runs = new Map<number, CreditPair>();
  for (const values of charges) {
    const [jobKey, , , state, reserved, charged, refunded, derived, , runId] = values;
    const cost = costOf(state, charged);
    if (runId !== null) addToRun(runs, runId, cost);
    add(totals.used, cost);
    if (state === 'open') totals.held.set(jobKey, (totals.held.get(jobKey) ?? 0) + reserved);
    else totals.counted += cost ?? reserved;
    totals.refunded.total += refunded;
    if (derived) totals.refunded.derived += refunded;
    const standing = chargeStanding(values, scope);
    if (standing !== 'forgotten') {
      const before = byJob.has(jobKey) ? byJob.get(jobKey)! : 0;
      byJob.set(jobKey, before === null || cost === null ? null : before + cost);
    }
    if (standing !== 'current' && standing !== 'retried' && cost !== null) totals.apart[standing] += cost;
  }
  for (const pair of runs.values()) pair.known = round(pair.known);
  return { totals: roundTotals(totals), byJob: byJob.round(round), runs };
}

/** The columns of a charge a run's figure is summed from (sumRunCredits), in the order RunChargeValues holds them: 3 of its 10 (100,000 charges read ~0.2 s sooner). */
export const RUN_CHARGE_COLUMNS = 'state, charged, run_id';

export type RunChargeValues = [state: string, charged: number | null, runId: number | null];

/** What each run was charged, over the manifest's `charges`, for the remote jobs it sent (whenever they settled). */
export function sumRunCredits(charges: Iterable<RunChargeValues>): Map<number, CreditPair> {
  const byRun = new Map<number, CreditPair>();
  for (const [state, charged, runId] of charges) if (runId !== null) addToRun(byRun, runId, costOf(state, charged));
  for (const pair of byRun.values()) pair.known = round(pair.known);
  return byRun;
}

function addToRun(byRun: Map<number, CreditPair>, runId: number, cost: number | null): void {
  let pair = byRun.get(runId);
  if (!pair) byRun.set(runId, (pair = { known: 0, unknown: 0 }));
  add(pair, cost);
}

function add(pair: CreditPair, cost: number | null): void {
  if (cost === null) pair.unknown++;
  else pair.known += cost;
}

/** Credits to the hundredth, as every sum of them is kept. */
export const roundCredits = (n: number): number => Math.round(n * 100) / 100;
const round = roundCredits;

function roundTotals(t: MoneyTotals): MoneyTotals {
  t.used.known = round(t.used.known);
  t.counted = round(t.counted);
  t.refunded = { total: round(t.refunded.total), derived: round(t.refunded.derived) };
  t.apart = { superseded: round(t.apart.superseded), removed: round(t.apart.removed), forgotten: round(t.apart.forgotten) };
  for (const [key, held] of t.held) t.held.set(key, round(held));
  return t;
}
