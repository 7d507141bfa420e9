import {
  changed,
  limitsOf,
  periodStart,
  totalOf,
  type AccountChange,
  type AccountLimits,
  type AccountManifestUse,
  type AccountRow,
  type AccountUsage,
  type AccountView,
  type DoubtSlot,
  type SlotLives,
  slotLifeOf,
  type SlotLifeRule,
  gates,
  judgeAsks,
  type GateAsk,
  type GateVerdict,
} from './account-rules.js';
import { LOCK_STALE_AFTER_MS } from './lock/lock-policy.js';
import { roundCredits } from './money-sums.js';
import { scrubSecrets } from './sqlite/events.js';

/**
 * The account's statements (account-rules.ts says what they count), one text and one logic for
 * both stores. Each reading is a generator that yields its statements (written with PostgreSQL's
 * `$n` placeholders: sqlite/account.ts turns them into `?`) and is handed back their rows. Why:
 * SQLite answers at once, inside its synchronous transaction, and PostgreSQL answers later; the
 * store runs the same steps with its own driver (sqliteSteps, pgSteps).
 */

/** One statement to run: its rows are handed back to the step that yielded it. */
export interface Query {
  sql: string;
  params: readonly unknown[];
}

/** A reading of the account: yields statements, returns its answer. */
export type Steps<T> = Generator<Query, T, Record<string, unknown>[]>;

/** Yields one statement, answering its rows. */
function* query<T>(sql: string, params: readonly unknown[] = []): Generator<Query, T[], Record<string, unknown>[]> {
  return (yield { sql, params }) as T[];
}

/** The account's one row (AccountRow), with `more` columns, and `lock` (PostgreSQL's FOR UPDATE) when the transaction must hold it. */
const limitsSql = (more = '', lock = ''): string => `SELECT concurrency, max_credits, per, rate, updated_at${more} FROM account WHERE id = 1${lock}`;

/**
 * The two times a statement may name, each put in by the store's driver: `$now`, the store's
 * clock (charges and events are stamped with it, so a slot's life is measured on it), and
 * `$dbnow`, the database's (PostgreSQL's clock tells the periods and the run locks' heartbeats
 * for every host alike; on SQLite, one host's, it is the store's clock too).
 */
export const NOW = '$now';
export const DB_NOW = '$dbnow';

/**
 * A slot counts while its charge is open, unless it was given back and its job is still in doubt —
 * or still `submitting`: an intent whose run died mid-POST, left so until a run of its manifest
 * recovers it (one that may never come), is in doubt in all but name.
 */
const SLOTS = `FROM charges c JOIN jobs j ON j.manifest = c.manifest AND j.key = c.job_key
  WHERE c.state = 'open' AND NOT (c.slot_freed_at IS NOT NULL AND j.status IN ('in_doubt', 'submitting'))`;

/** Spent and held by the charges since $1 (account-rules.ts: a cost not reported counts at its reservation). */
const MONEY = `coalesce(sum(CASE WHEN state = 'settled' THEN coalesce(charged, reserved) ELSE 0 END), 0) AS spent,
  coalesce(sum(CASE WHEN state = 'open' THEN reserved ELSE 0 END), 0) AS held`;

/**
 * The slots of jobs in doubt not given back yet — with `orLeft`, of jobs left `submitting` too
 * (see SLOTS: past their slot life, an hour at least, no POST of theirs is still on its way;
 * `account show` lists only the jobs in doubt, a live run's POST being `submitting` as well).
 */
const doubtSql = (orLeft: boolean) => `SELECT c.id, c.manifest, c.job_key, c.kind, c.created_at FROM charges c JOIN jobs j ON j.manifest = c.manifest AND j.key = c.job_key
  WHERE c.state = 'open' AND c.slot_freed_at IS NULL AND j.status IN ('in_doubt'${orLeft ? ", 'submitting'" : ''}) ORDER BY c.id`;

/** A lock whose holder beat within its own lease (the default's for a row an older reelpipe wrote): a live run, at `now`; the default lease is the statement's last parameter. */
const LIVE_LOCK = (now: string, fallback = '$1'): string => `heartbeat_at >= ${now} - coalesce(lease_ms, ${fallback})`;

const CLOCKS = `${NOW} AS now, ${DB_NOW} AS db_now`;
type Clocks = { now: number | string; db_now: number | string };
const clocksOf = (row: Clocks): { now: number; dbNow: number } => ({ now: Number(row.now), dbNow: Number(row.db_now) });

interface DoubtRow {
  id: number;
  manifest: string;
  job_key: string;
  kind: string;
  created_at: number;
}

/** The limits recorded (none: NO_LIMITS); `lock`: the row held to the transaction's end. */
export function* readLimits(lock = ''): Steps<AccountLimits> {
  return limitsOf((yield* query<AccountRow>(limitsSql('', lock)))[0]);
}

/** `account set`: the limits after `change`, recorded at `now`. */
export function* writeLimits(change: AccountChange, now: number, lock = ''): Steps<AccountLimits> {
  // Read with the row locked (PostgreSQL's FOR UPDATE): two `account set` at once change one after the other, neither losing the other's flags.
  const next = changed(yield* readLimits(lock), change);
  yield* query(
    `INSERT INTO account (id, concurrency, max_credits, per, rate, updated_at) VALUES (1, $1, $2, $3, $4, $5)
     ON CONFLICT (id) DO UPDATE SET concurrency = excluded.concurrency, max_credits = excluded.max_credits, per = excluded.per, rate = excluded.rate, updated_at = excluded.updated_at`,
    [next.concurrency, next.maxCredits, next.per, next.rate, now],
  );
  return { ...next, updatedAt: now };
}

/** The slots of jobs in doubt, each with the moment it is given back (its intent plus its kind's slot life). */
function* doubtSlots(rule: SlotLifeRule, orLeft = false): Steps<(DoubtSlot & { id: number })[]> {
  return (yield* query<DoubtRow>(doubtSql(orLeft))).map((row) => ({
    id: row.id,
    manifest: row.manifest,
    key: row.job_key,
    since: row.created_at,
    until: row.created_at + slotLifeOf(rule, row.manifest, row.kind),
  }));
}

/**
 * What counts against the limits at `now`, in the gate's transaction: first the slots of jobs in
 * doubt past their life are given back, each with an `account:slot-freed` event on its job.
 */
function* usage(limits: AccountLimits, { now, dbNow }: { now: number; dbNow: number }, rule: SlotLifeRule, runId: number | null): Steps<AccountUsage> {
  const freed = limits.concurrency === null ? [] : (yield* doubtSlots(rule, true)).filter((slot) => slot.until <= now);
  for (const slot of freed) {
    yield* query('UPDATE charges SET slot_freed_at = $1 WHERE id = $2', [now, slot.id]);
    const data = { message: `in doubt since ${new Date(slot.since).toISOString()}, past its kind's slot life: its account slot is given back (run \`reelpipe resolve\` to settle the job)`, since: slot.since };
    yield* query(`INSERT INTO events (at, run_id, manifest, job_key, type, data) VALUES ($1, $2, $3, $4, 'account:slot-freed', $5)`, [now, runId, slot.manifest, slot.key, JSON.stringify(scrubSecrets(data))]);
  }
  const since = periodStart(limits.per, dbNow);
  const [row] = yield* query<{ alive: number; spent: number; held: number }>(
    `SELECT (SELECT count(*) ${SLOTS}) AS alive, m.spent, m.held FROM (SELECT ${MONEY} FROM charges WHERE created_at >= $1) m`,
    [since],
  );
  return { alive: Number(row!.alive), spent: row!.spent, held: row!.held, since };
}

/** `account show`: the limits and, per manifest that has charges in the period, a slot or a live run, what it uses. */
export function* accountView(lives: SlotLives): Steps<AccountView> {
  const { dbNow } = clocksOf((yield* query<Clocks>(`SELECT ${CLOCKS}`))[0]!);
  const limits = yield* readLimits();
  const since = periodStart(limits.per, dbNow);
  const money = yield* query<{ manifest: string; spent: number; held: number }>(`SELECT manifest, ${MONEY} FROM charges WHERE created_at >= $1 GROUP BY manifest`, [since]);
  const slots = yield* query<{ manifest: string; n: number }>(`SELECT c.manifest, count(*) AS n ${SLOTS} GROUP BY c.manifest`);
  const locks = yield* query<{ name: string; host: string }>(`SELECT name, host FROM locks WHERE ${LIVE_LOCK('$1', '$2')}`, [dbNow, LOCK_STALE_AFTER_MS]);
  const byManifest = new Map<string, AccountManifestUse>();
  const use = (manifest: string) => {
    let found = byManifest.get(manifest);
    if (!found) byManifest.set(manifest, (found = { manifest, spent: 0, held: 0, slots: 0, hosts: [] }));
    return found;
  };
  for (const spend of money) Object.assign(use(spend.manifest), { spent: roundCredits(spend.spent), held: roundCredits(spend.held) });
  for (const used of slots) use(used.manifest).slots = Number(used.n);
  for (const lock of locks) if (!use(lock.name).hosts.includes(lock.host)) use(lock.name).hosts.push(lock.host);
  const manifests = [...byManifest.values()].sort((a, b) => (a.manifest < b.manifest ? -1 : a.manifest > b.manifest ? 1 : 0));
  const doubt = (yield* doubtSlots({ lives })).map(({ id: _, ...slot }) => slot);
  return { limits, since, now: dbNow, manifests, total: totalOf(manifests), doubtSlots: doubt };
}


/**
 * The gate of an intent's transaction (of run `runId`): the account's row locked (`lock`), the
 * limits read, and — when they limit anything — what counts against them judged for `asks`
 * (judgeAsks); null when nothing is limited (every ask granted).
 */
export function* gate(asks: readonly GateAsk[], rule: SlotLifeRule, runId: number | null, lock = ''): Steps<GateVerdict[] | null> {
  const [found] = yield* query<AccountRow & Clocks>(limitsSql(`, ${CLOCKS}`, lock));
  const limits = limitsOf(found);
  if (!found || !gates(limits) || asks.length === 0) return null;
  return judgeAsks(limits, yield* usage(limits, clocksOf(found), rule, runId), asks);
}

/** What a run sharing the account's rate reads at each tick: the rate, the live runs it is split between, and the shared cooldown left (ms). */
export interface SharedRate {
  rate: number | null;
  live: number;
  cooldownMs: number;
}

export function* sharedRate(): Steps<SharedRate> {
  const [row] = yield* query<{ rate: number | null; cooldown_until: number | null; db_now: number | string; live: number | string }>(
    `SELECT a.rate, a.cooldown_until, ${DB_NOW} AS db_now, (SELECT count(*) FROM locks WHERE ${LIVE_LOCK(DB_NOW)}) AS live FROM account a WHERE a.id = 1`,
    [LOCK_STALE_AFTER_MS],
  );
  if (!row) return { rate: null, live: 0, cooldownMs: 0 };
  return { rate: row.rate, live: Number(row.live), cooldownMs: Math.max(0, Number(row.cooldown_until ?? 0) - Number(row.db_now)) };
}

/** A 429 met by one run: every run on the account holds its requests for `ms` from now (the database's clock), unless held longer already. */
export function* shareCooldown(ms: number): Steps<void> {
  yield* query(`UPDATE account SET cooldown_until = ${DB_NOW} + $1 WHERE id = 1 AND coalesce(cooldown_until, 0) < ${DB_NOW} + $1`, [Math.ceil(ms)]);
}
