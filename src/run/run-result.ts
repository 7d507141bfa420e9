import { scopedJobs } from '../plan/job-index.js';
import { overrunOf } from '../report/credits.js';
import { dependencies } from './dependencies.js';
import type { Plan } from '../plan/types.js';
import type { JobItemRow, JobState, JobStatus, MoneySums } from '../state/index.js';
import { adapterFor } from './adapters/index.js';
import type { Overrun } from './budget/budget-ledger.js';
import type { RunContext } from './run-context.js';
import type { StopReason } from './run-events.js';
import { standingOf, type Standing } from './standing.js';
import { StatesAtEnd } from './states-at-end.js';

/** What a run did, for the summary, the exit code and the tests. */
export interface RunResult {
  /** Jobs of the plan per status, after the run, from the state database. */
  counts: Partial<Record<JobStatus, number>>;
  /** Where each job stands, from the state database: what the exit code is decided on. */
  standing: Standing;
  /** Jobs not submitted because a job they need failed. */
  blocked: string[];
  /** Jobs left in doubt (cannot be reconciled). */
  heldInDoubt: string[];
  /** Finished jobs whose files could not all be fetched. */
  undownloaded: string[];
  stop: StopReason | null;
  stopMessage: string | null;
  /** Credits, unknown never counted as 0 (see RunCredits). */
  credits: RunCredits;
  requests: { reads: number };
  /**
   * The rows, as the state database has them at the end, of the jobs the summary names with their
   * reason (those `labels` names: every job not finished cleanly): not every job's, which a
   * 100,000-job run held through its report (tens of MB).
   */
  noted: JobState[];
  /** The money of the plan's jobs (and each run's) as the state database has it at the end (the report is written from it too). */
  money: MoneySums;
  /**
   * Whether this process ends the run (its report, on_finish, notify): always when it ran the
   * manifest alone; for a member of a shared run (members.ts), when it was the last to leave.
   */
  endsRun: boolean;
  /** The failed items of jobs that have some (a partly failed HTML ad job's styles), by job key. */
  failedItems: Map<string, JobItemRow[]>;
  /** The labels of the jobs the summary and the exit's message name (those needing attention, the overruns): the run holds no other's. */
  labels: ReadonlyMap<string, string>;
  /** The plan's jobs whose recorded cost passed their high estimate (in every run), in plan order. */
  overHigh: { key: string; label: string; charged: number; high: number }[];
  /**
   * When `--max-wait` ended (or ends), in the clock's milliseconds: what else the run does before it
   * exits (its notifications) is bounded by it; undefined without one.
   */
  deadlineAt?: number;
}

/**
 * A run's credits, summed as `status --json` totals them: `estimated` is the plan's, `used` what
 * the service charged the manifest, over every charge it ever had (state/sqlite/money.ts) — null when
 * every charge's cost is unknown, never 0 for unknown — with what is left out counted beside them
 * (`unknownEstimates`: jobs nobody prices; `unknownUsed`: remote jobs whose cost the service has
 * not reported). `thisRun`: what the remote jobs this run sent were charged, whenever they settle.
 * `apart`: the part of `used` spent on no job of the plan (an edited row's earlier version, a row
 * gone from the manifest, a forgotten job). `spent` is what the ledger counts against the cap (a
 * cost not reported counts at its high estimate); `overruns`: jobs whose real cost passed their
 * high estimate.
 */
export interface RunCredits {
  estimated: number | null;
  unknownEstimates: number;
  used: number | null;
  unknownUsed: number;
  thisRun: { used: number; unknown: number };
  apart: { superseded: number; removed: number; forgotten: number };
  refunded: { total: number; derived: number };
  spent: number;
  cap: number | null;
  overruns: (Overrun & { label: string })[];
}

/** What the run did, read back from the state database (the truth), not from what the run remembers. */
export async function summarise(ctx: RunContext, plan: Plan, reads: number): Promise<Omit<RunResult, 'endsRun'>> {
  const states = await StatesAtEnd.read(ctx.store, (key) => ctx.planned.ordinal(key), plan.jobs.length);
  const kept = [...states.kept.values()];
  const standing = standingOf(plan, states, dependencies(plan));
  const money = await ctx.store.money(scopedJobs(plan));
  const named = namedKeys(standing, kept, ctx.ledger.overruns);
  const { labels, overHigh } = labelsAndOverruns(plan, states, named);
  return {
    counts: states.counts,
    standing,
    blocked: standing.blocked,
    heldInDoubt: kept.filter((r) => r.status === 'in_doubt').map((r) => r.key),
    undownloaded: standing.open.toDownload,
    stop: ctx.stop.reason,
    stopMessage: ctx.stop.message,
    credits: runCredits(ctx, plan, money, labels),
    requests: { reads },
    noted: kept.filter((row) => labels.has(row.key)),
    money,
    failedItems: await failedItemsOf(ctx, kept),
    labels,
    overHigh,
  };
}

/** The jobs a summary or an exit's message may name: every one not finished cleanly, and the overruns. */
function namedKeys(standing: Standing, kept: readonly JobState[], overruns: readonly Overrun[]): Set<string> {
  const { finished: _finished, open, waitingOnDoubt, ...groups } = standing;
  const named = new Set<string>([...Object.values(groups).flat(), ...Object.values(open).flat(), ...overruns.map((o) => o.key)]);
  for (const { key, on } of waitingOnDoubt) for (const k of [key, ...on]) named.add(k);
  for (const row of kept) if (row.status === 'in_doubt' || row.status === 'hook_failed' || row.status === 'partly_failed') named.add(row.key);
  return named;
}

/**
 * One pass over the plan's jobs (a streamed plan makes them once more): the labels of the jobs
 * `named`, and every job whose recorded cost passed its high estimate.
 */
function labelsAndOverruns(plan: Plan, states: StatesAtEnd, named: ReadonlySet<string>): Pick<RunResult, 'labels' | 'overHigh'> {
  const labels = new Map<string, string>();
  const overHigh: RunResult['overHigh'] = [];
  if (named.size === 0 && !states.anyUsed) return { labels, overHigh };
  for (const job of plan.jobs) {
    if (named.has(job.key)) labels.set(job.key, job.label);
    const over = states.anyUsed ? overrunOf(job, states.usedOf(job.key)) : null;
    if (over) {
      labels.set(job.key, job.label);
      overHigh.push(over);
    }
  }
  return { labels, overHigh };
}

/** Each job's failed items, for the jobs that may have some: partly failed, or failed whole (a kind of items). */
async function failedItemsOf(ctx: RunContext, kept: readonly JobState[]): Promise<Map<string, JobItemRow[]>> {
  const byKey = new Map<string, JobItemRow[]>();
  for (const row of kept) {
    if (row.status !== 'partly_failed' && !(row.status === 'failed' && adapterFor(row.kind).items)) continue;
    const failed = (await ctx.store.items(row.key)).filter((item) => item.state === 'failed');
    if (failed.length) byKey.set(row.key, failed);
  }
  return byKey;
}

function runCredits(ctx: RunContext, plan: Plan, { totals, runs }: MoneySums, labels: ReadonlyMap<string, string>): RunCredits {
  const thisRun = ctx.store.runId === null ? undefined : runs.get(ctx.store.runId);
  return {
    estimated: plan.totals.credits?.expected ?? null,
    unknownEstimates: plan.totals.unknownJobs,
    used: totals.used.unknown > 0 && totals.used.known === 0 ? null : totals.used.known,
    unknownUsed: totals.used.unknown,
    thisRun: { used: thisRun?.known ?? 0, unknown: thisRun?.unknown ?? 0 },
    apart: totals.apart,
    refunded: totals.refunded,
    spent: ctx.ledger.spent,
    cap: ctx.ledger.cap,
    overruns: ctx.ledger.overruns.map((o) => ({ ...o, label: labels.get(o.key) ?? o.key })),
  };
}
