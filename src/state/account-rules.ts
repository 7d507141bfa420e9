import { ReelpipeError } from '../errors.js';
import { formatCredits } from '../util/format.js';
import { roundCredits } from './money-sums.js';

/**
 * The account: limits every manifest (and every process) on one state shares, because they spend
 * one service account's render slots and credits (`reelpipe account set`). The limits are one row
 * (migration 20); what counts against them is read from the charges, the money's own ledger, in
 * the transaction that opens a new charge — an intent — with the account's row locked, so two
 * processes never both take the last slot or the last credits:
 *
 *   slots in use = open charges (an intent whose remote job has not ended: it is rendering, or
 *                  may be), but not those of a job in doubt past its slot's life (below)
 *   spent        = settled charges of the period at their cost (a cost not reported: at what was
 *                  held for it, as every total counts it: money-sums.ts)
 *   held         = open charges of the period at their reservation (the job's high estimate)
 *
 * An intent is granted when a slot is free (`concurrency`) and spent + held + its reservation
 * stays within `max_credits`; else it is refused with AccountLimitError, nothing written. The
 * period (`per`: a UTC day, ISO week from Monday, or month) is told by the database's clock; a
 * charge belongs to the period its intent was committed in. No period: every charge ever counts,
 * as a manifest's own budget counts every charge of the manifest.
 *
 * A job in doubt keeps its slot (its remote job may be rendering) until `resolve` settles it, or
 * until ten times its kind's typical life has passed since its intent (at least an hour): by then
 * a job that exists has ended, and the slot is given back, with an `account:slot-freed` event.
 */
export type AccountPeriod = 'day' | 'week' | 'month';
export const ACCOUNT_PERIODS: readonly AccountPeriod[] = ['day', 'week', 'month'];

export interface AccountLimits {
  /** Jobs alive at the service at once, across every manifest and process; null: no limit. */
  concurrency: number | null;
  /** Credits the account may spend (per period, if `per`); null: no cap. */
  maxCredits: number | null;
  per: AccountPeriod | null;
  /** Requests a second to the service, shared by every live run; null: each run's own. */
  rate: number | null;
  /** When they were last set (epoch ms); null: never set. */
  updatedAt: number | null;
}

/** What `account set` changes: a field given (null clears it) replaces the one recorded. */
export type AccountChange = Partial<Omit<AccountLimits, 'updatedAt'>>;

export const NO_LIMITS: AccountLimits = { concurrency: null, maxCredits: null, per: null, rate: null, updatedAt: null };

/** Whether intents must ask the account (a slot limit or a cap is set). */
export const gates = (limits: AccountLimits): boolean => limits.concurrency !== null || limits.maxCredits !== null;

/** What counts against the limits at one moment. */
export interface AccountUsage {
  /** Slots in use. */
  alive: number;
  spent: number;
  held: number;
  /** The period's first moment (epoch ms; 0 without a period). */
  since: number;
}

/** One intent asking the account: its job and the credits it holds. */
export interface GateAsk {
  key: string;
  amount: number;
}

export type GateVerdict = { granted: true } | { granted: false; limit: 'concurrency' | 'credits'; message: string };

/** The first moment of the UTC period that holds `now` (0: no period, every charge counts). */
export function periodStart(per: AccountPeriod | null, now: number): number {
  if (per === null) return 0;
  const d = new Date(now);
  const day = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  if (per === 'day') return day;
  if (per === 'month') return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  // ISO weeks start on Monday (getUTCDay: 0 is Sunday).
  return day - ((d.getUTCDay() + 6) % 7) * DAY_MS;
}

/**
 * The verdict on each ask, in order, each granted one counted before the next is judged (the
 * asks of one transaction). Policy: a slot refusal comes first — the job waits for a slot and
 * asks again — and only a job that would get a slot is refused for credits, which stops the run.
 */
export function judgeAsks(limits: AccountLimits, usage: AccountUsage, asks: readonly GateAsk[]): GateVerdict[] {
  const { spent } = usage;
  let { alive, held } = usage;
  return asks.map((ask): GateVerdict => {
    if (limits.concurrency !== null && alive >= limits.concurrency) {
      return { granted: false, limit: 'concurrency', message: `the account's ${limits.concurrency} slots are all in use` };
    }
    if (limits.maxCredits !== null && spent + held + ask.amount > limits.maxCredits + 1e-9) {
      const period = limits.per === null ? '' : ` a ${limits.per}`;
      return {
        granted: false,
        limit: 'credits',
        message: `the account's cap of ${formatCredits(limits.maxCredits)}${period} would be passed: ${formatCredits(round(spent))} spent and ${formatCredits(round(held))} held across every manifest, and this job holds ${formatCredits(ask.amount)} (its high estimate)`,
      };
    }
    alive++;
    held += ask.amount;
    return { granted: true };
  });
}

/** The shortest slot life, and a kind's that is not listed: an hour. */
const MIN_SLOT_LIFE_MS = 3_600_000;

/** How long a job in doubt keeps its slot: ten times its kind's typical life, at least an hour. */
export const slotLifeMs = (typicalSeconds: number): number => Math.max(MIN_SLOT_LIFE_MS, 10 * typicalSeconds * 1000);

/** Every kind's slot life (slotLifeMs), as the intent's transaction reads it; a kind not listed: an hour. */
export type SlotLives = Readonly<Record<string, number>>;

/**
 * The slot lives an intent's transaction judges by: `lives` for every manifest's jobs in doubt, and
 * `own` for the asking run's manifest — scaled by its time scale (a sandbox's run) — so that one
 * run's scale never frees another manifest's slots early.
 */
export interface SlotLifeRule {
  lives: SlotLives;
  own?: { manifest: string; lives: SlotLives };
}

/** The slot life of a job of `kind` in `manifest`, by `rule`. */
export const slotLifeOf = (rule: SlotLifeRule, manifest: string, kind: string): number =>
  (rule.own !== undefined && rule.own.manifest === manifest ? rule.own.lives : rule.lives)[kind] ?? MIN_SLOT_LIFE_MS;

/**
 * An intent the account refused (nothing was written). `concurrency`: no slot is free now — the
 * runner waits and asks again; `credits`: the cap would be passed — the run stops submitting and
 * exits 3, as for its own budget.
 */
export class AccountLimitError extends ReelpipeError {
  constructor(
    readonly limit: 'concurrency' | 'credits',
    message: string,
  ) {
    super('BUDGET_EXCEEDED', message);
  }
}

/** The error for a refused verdict. */
export const refusal = (verdict: Extract<GateVerdict, { granted: false }>): AccountLimitError => new AccountLimitError(verdict.limit, verdict.message);

/** A row of the account table as both stores read it. */
export interface AccountRow {
  concurrency: number | null;
  max_credits: number | null;
  per: string | null;
  rate: number | null;
  updated_at: number;
}

export function limitsOf(row: AccountRow | undefined): AccountLimits {
  if (!row) return NO_LIMITS;
  return {
    concurrency: row.concurrency,
    maxCredits: row.max_credits,
    per: ACCOUNT_PERIODS.includes(row.per as AccountPeriod) ? (row.per as AccountPeriod) : null,
    rate: row.rate,
    updatedAt: row.updated_at,
  };
}

/** The limits after `change`. */
export const changed = (limits: AccountLimits, change: AccountChange): Omit<AccountLimits, 'updatedAt'> => ({
  concurrency: change.concurrency !== undefined ? change.concurrency : limits.concurrency,
  maxCredits: change.maxCredits !== undefined ? change.maxCredits : limits.maxCredits,
  per: change.per !== undefined ? change.per : limits.per,
  rate: change.rate !== undefined ? change.rate : limits.rate,
});

/** One manifest's share of the account, for `account show`. */
export interface AccountManifestUse {
  manifest: string;
  spent: number;
  held: number;
  slots: number;
  /** Hosts whose run holds the manifest's lock with a fresh heartbeat. */
  hosts: string[];
}

/** A slot held by a job in doubt, for `account show`: given back at `until` unless resolved. */
export interface DoubtSlot {
  manifest: string;
  key: string;
  since: number;
  until: number;
}

/** `account show`: the limits, what counts against them, per manifest and in total. */
export interface AccountView {
  limits: AccountLimits;
  since: number;
  /** The database's clock when read. */
  now: number;
  manifests: AccountManifestUse[];
  total: { spent: number; held: number; slots: number; hosts: string[] };
  doubtSlots: DoubtSlot[];
}

/** The view's totals over its manifests. */
export function totalOf(manifests: readonly AccountManifestUse[]): AccountView['total'] {
  return {
    spent: round(manifests.reduce((n, m) => n + m.spent, 0)),
    held: round(manifests.reduce((n, m) => n + m.held, 0)),
    slots: manifests.reduce((n, m) => n + m.slots, 0),
    hosts: [...new Set(manifests.flatMap((m) => m.hosts))].sort(),
  };
}

const round = roundCredits;
const DAY_MS = 86_400_000;
