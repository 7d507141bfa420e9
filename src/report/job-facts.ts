import { scopedJobs } from '../plan/job-index.js';
import type { PlanIndex } from '../plan/plan-index.js';
import type { Plan } from '../plan/types.js';
import { slotOf as slot, stateAt, type AttemptRecord, type CreditPair, type MoneySums, type FactsRow as Row, type JobFigures, type JobItemRow, type JobRow, type JobStatus, type MoneyTotals, type RecordedOutput } from '../state/index.js';
import { attemptFacts, type AttemptFact } from './attempt-facts.js';
import { stateWord, type StateWord } from '../state/vocabulary.js';
import { oneLine } from '../util/one-line.js';

export type { RecordedOutput };

/**
 * What the state database knows of one job, for `plan --json`, `status` and the report. Unknown
 * is null, never 0: `creditsUsed` is null while the cost is not reported (a job in flight, or one
 * the service never priced), and 0 only when nothing was made (not sent, or refused).
 */
export interface JobFacts {
  state: StateWord;
  /** The database's status; null when it has never recorded the job. */
  status: JobStatus | null;
  remoteId: string | null;
  /** This job's whole cost so far, earlier failed attempts included; null when not known. */
  creditsUsed: number | null;
  /** What the service reported for the current attempt alone (compared with the estimate). */
  creditsCharged: number | null;
  failedReason: string | null;
  doubtReason: string | null;
  submittedAt: number | null;
  finishedAt: number | null;
  /** When the last of its files was downloaded; null without files. */
  downloadedAt: number | null;
  /** Files downloaded and verified (a checksum recorded). */
  outputs: readonly RecordedOutput[];
  /** Its items (an HTML ad per style), each with its end and, when made, its file; empty for other kinds. */
  items: readonly JobItemFact[];
  /** Its earlier versions (the jobs of its row before an edit), oldest first, with their kept files. */
  history: readonly EarlierVersion[];
  /** Its attempts, oldest first: each creating request, how it ended, why, and what it cost. */
  attempts: readonly AttemptFact[];
}

/** One item of a job, as `status`, the report and the results files show it. */
export interface JobItemFact {
  item: string;
  state: 'done' | 'failed';
  reason: string | null;
  /** Credits given back for it (a failed ad); `refundDerived`: from the price rule, the service says none. */
  refunded: number;
  refundDerived: boolean;
  /** Its file, relative to the outputs folder, once downloaded. */
  path: string | null;
}

/** An earlier version of a job: another key in its place, before its row was edited. */
export interface EarlierVersion {
  key: string;
  /** What it cost (null: unknown): spent on an earlier version, counted in every total. */
  creditsUsed: number | null;
  /** Its files, kept in STEP/superseded/. */
  outputs: readonly RecordedOutput[];
}

/**
 * Each job's facts, by key: a job of the plan the state never recorded is `not submitted` (one
 * shared value; only the recorded and the changed are held, so a plan of 1,000,000 new jobs holds none).
 */
export interface JobFactsOf {
  get(key: string): JobFacts;
}

/** Every job's facts, and the manifest's money over every charge it ever had (state/sqlite/money.ts). */
export interface FactsRead {
  facts: JobFactsOf;
  money: MoneyTotals;
  /** What each run was charged, summed in the same pass as `money` (MoneySums.runs). */
  runs: Map<number, CreditPair>;
}

/**
 * Every job of `plan` as the state database at `dbPath` knows it, in two queries (not one per
 * job): read-only, no lock, so it works while a run is going. A missing database knows nothing:
 * every job is then `not submitted`. A key the database lacks is `changed` when a job of the same
 * step and output name is recorded under another key (its inputs changed, so its key did).
 *
 * `known`: what a run read from this database at its end, after its last write: the plan's rows
 * (not read again when they cover every job of the plan) and the money of the plan's jobs.
 */
export async function readJobFacts(dbPath: string, plan: Pick<Plan, 'manifestId' | 'jobs'> & { index?: PlanIndex }, known: { rows?: readonly Row[] | undefined; money?: MoneySums | undefined } = {}): Promise<FactsRead> {
  const held = new Map<string, JobFacts>();
  const facts: JobFactsOf = { get: (key) => held.get(key) ?? UNRECORDED };
  let rows = new Map<string, Row>();
  for (const row of known.rows ?? []) rows.set(row.key, row);
  // A plan job missing from them may be `changed`, which only the other rows of the database say.
  const wanted = { rows: !(known.rows && everyKey(plan, (key) => rows.has(key))), money: !known.money };
  const read = await stateAt(dbPath).facts(plan.manifestId, scopedJobs(plan), wanted);
  if (!read) return { facts, money: NO_MONEY, runs: new Map() };
  // The rows read, as they came when the caller gave none (not copied, 100,000 of them).
  if (read.rows && rows.size === 0) rows = read.rows;
  else for (const [key, row] of read.rows ?? []) rows.set(key, row);
  // Every figure of money is a sum over the charges (state/sqlite/money.ts), a job's own too.
  const money = (read.money ?? known.money) as MoneySums;
  const found: FactsFound = { ...read, rows, byJob: money.byJob };
  // The plan's keys, steps and output names (from a streamed plan's index: no job made).
  for (const job of scopedJobs(plan)) {
    const f = recordedFacts(job.key, found, read.earlier.get(job.key));
    if (f) held.set(job.key, f);
    else if (read.slots?.has(slot(job.step, job.outputName))) held.set(job.key, CHANGED);
  }
  return { facts, money: money.totals, runs: money.runs };
}

/** What a read found of some jobs, by key (a key without a row, file, item, attempt or charge is absent). */
export interface FactsFound {
  rows: ReadonlyMap<string, Row>;
  outputs: ReadonlyMap<string, readonly RecordedOutput[]>;
  items: ReadonlyMap<string, readonly JobItemRow[]>;
  attempts: ReadonlyMap<string, readonly AttemptRecord[]>;
  /** Each job's own money (MoneySums.byJob): null, a cost not known. */
  byJob: JobFigures;
}

/**
 * The facts of the job of `key` from what a read found of it (and of its earlier versions, by
 * their keys, oldest first); undefined when the state has no row of it (it is then not
 * submitted, or changed: unrecordedFacts).
 */
export function recordedFacts(key: string, found: FactsFound, earlier: readonly string[] | undefined): JobFacts | undefined {
  const row = found.rows.get(key);
  if (!row) return undefined;
  // A job with no charge cost nothing (never sent, or refused); null is a cost not known.
  const usedBy = (of: string) => (found.byJob.has(of) ? (found.byJob.get(of) as number | null) : 0);
  const versionOf = (of: string): EarlierVersion => ({ key: of, creditsUsed: usedBy(of), outputs: found.outputs.get(of) ?? NONE });
  const files = found.outputs.get(key) ?? NONE;
  // Most jobs have no earlier version, and one never sent has no attempt: no array is made for none.
  const tries = found.attempts.get(key);
  const tried = tries ? attemptFacts(tries, row.status) : NO_ATTEMPTS;
  return recorded(row, usedBy(key), files, itemFacts(found.items.get(key), files), earlier ? earlier.map(versionOf) : NO_VERSIONS, tried);
}

/** The facts of a job the database has never recorded: not submitted, or `changed` (another key fills its place). */
export const unrecordedFacts = (changed: boolean): JobFacts => (changed ? CHANGED : UNRECORDED);

/** The money of a state that is not there. */
export const NO_MONEY: MoneyTotals = Object.freeze({
  used: { known: 0, unknown: 0 }, apart: { superseded: 0, removed: 0, forgotten: 0 }, refunded: { total: 0, derived: 0 }, counted: 0, held: new Map(),
});

/** A job's items as shown, each with its file once downloaded (the output at its place). */
function itemFacts(items: readonly JobItemRow[] | undefined, files: readonly RecordedOutput[]): readonly JobItemFact[] {
  if (!items) return NO_ITEMS;
  return items.map((i) => ({
    item: i.item, state: i.state, reason: i.failedReason === null ? null : oneLine(i.failedReason, REASON_MAX), refunded: i.refunded,
    refundDerived: i.refundDerived, path: files.find((f) => f.idx === i.idx)?.path ?? null,
  }));
}

const NONE: readonly RecordedOutput[] = Object.freeze([]);
const NO_ITEMS: readonly JobItemFact[] = Object.freeze([]);
const NO_VERSIONS: readonly EarlierVersion[] = Object.freeze([]);
const NO_ATTEMPTS: readonly AttemptFact[] = Object.freeze([]);
const round = (n: number) => Math.round(n * 100) / 100;

/** A job the database has never recorded: one shared, frozen value (a 100,000-job plan needs no 100,000 copies). */
function unrecorded(changed: boolean): Readonly<JobFacts> {
  return Object.freeze({
    state: stateWord(null, changed), status: null, remoteId: null, creditsUsed: 0, creditsCharged: null, failedReason: null,
    doubtReason: null, submittedAt: null, finishedAt: null, downloadedAt: null, outputs: NONE, items: NO_ITEMS, history: NO_VERSIONS, attempts: NO_ATTEMPTS,
  });
}
const UNRECORDED = unrecorded(false);
const CHANGED = unrecorded(true);

/** Characters kept of a reason where there is room for one (status, the report, results files): more than a progress line's. */
const REASON_MAX = 1000;

function recorded(
  row: Row, used: number | null, outputs: readonly RecordedOutput[], items: readonly JobItemFact[], history: readonly EarlierVersion[], attempts: readonly AttemptFact[],
): JobFacts {
  let downloaded: number | null = null;
  for (const o of outputs) if (o.downloadedAt !== null) downloaded = Math.max(downloaded ?? 0, o.downloadedAt);
  return {
    state: stateWord(row.status),
    status: row.status,
    remoteId: row.remoteId,
    creditsUsed: used,
    creditsCharged: row.creditsUsed,
    // The service's words on one line (a proxy's HTML error page as its text): status, the report
    // and results.csv show them as they show every reason; the full text is in the run's log.
    failedReason: row.failedReason === null ? null : oneLine(row.failedReason, REASON_MAX),
    doubtReason: row.status === 'in_doubt' ? oneLine(row.doubtReason ?? 'no reason recorded', REASON_MAX) : null,
    submittedAt: row.submittedAt,
    finishedAt: row.finishedAt,
    downloadedAt: downloaded,
    outputs,
    items,
    history: history.length ? history : NO_VERSIONS,
    attempts: attempts.length ? attempts : NO_ATTEMPTS,
  };
}

/**
 * Policy: nothing was made for a job not yet sent or refused by the service, so it cost nothing
 * beyond earlier attempts; any other job without a reported cost is of unknown cost (null), not
 * free — the service may yet charge it, or never say what it charged.
 */
export function usedCredits(row: Pick<JobRow, 'status' | 'creditsUsed' | 'creditsPrior'>): number | null {
  if (row.status === 'planned' || row.status === 'rejected') return round(row.creditsPrior);
  return row.creditsUsed === null ? null : round(row.creditsUsed + row.creditsPrior);
}

/** Whether `test` holds for every job's key (read from the plan's index when it has one: no job made). */
function everyKey(plan: { jobs: Plan['jobs']; index?: PlanIndex }, test: (key: string) => boolean): boolean {
  for (const { key } of scopedJobs(plan)) if (!test(key)) return false;
  return true;
}
