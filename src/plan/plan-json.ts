import { resolve } from 'node:path';
import { overrunOf } from '../report/credits.js';
import { JobTotalsSum, type TotalledJob } from '../report/job-totals.js';
import type { StateWord } from '../state/vocabulary.js';
import { NEW } from './render-table.js';
import type { CreditTotal, Plan, PlannedJob } from './types.js';
import { utcIsoOrNull as iso } from '../util/time-format.js';

/**
 * What the state database knows of a job, as `plan --json` shows it (src/report/job-facts.ts
 * reads it). Times are epoch milliseconds here, ISO 8601 in the JSON; unknown is null.
 */
export interface RecordedJob {
  state: StateWord;
  /** The database's own name for the status (docs/report.md#states): `dbStatus` in the JSON. */
  status: string | null;
  remoteId: string | null;
  creditsUsed: number | null;
  /** What the service charged the current attempt (compared with the high estimate); absent: not known. */
  creditsCharged?: number | null;
  submittedAt: number | null;
  finishedAt: number | null;
  downloadedAt: number | null;
  /** Relative to the outputs folder. */
  outputs: readonly { path: string }[];
}
export type RecordOf = (key: string) => RecordedJob | undefined;

/**
 * What `plan --json` says around the plan, as every `--json` output does: the state database its
 * jobs' states come from, and how the command ends (the budget gate's verdict, the exit code).
 */
export interface PlanJsonFrame {
  stateDb?: string;
  /**
   * What the state database says is already spent on the manifest — every remote job it ever made,
   * edited rows' earlier versions and forgotten jobs included, what of it went to no job of the plan
   * — and what jobs still at the service are expected to cost (the budget gate's figures).
   */
  spent?: { credits: number; apart: { superseded: number; removed: number; forgotten: number }; held: number };
  /**
   * The manifest's whole spend over every charge it ever had (state/sqlite/money.ts): the totals' credits
   * used are it, with what went to no job of the plan and the refunds, as `status --json` gives them.
   */
  money?: { used: { known: number; unknown: number }; apart: { superseded: number; removed: number; forgotten: number }; refunded: { total: number; derived: number } };
  outcome?: string;
  exitCode?: number;
  error?: string | null;
}

/**
 * `reelpipe plan --json`: the whole plan, each job with its state from the run state. Its steps
 * and totals have the shape of `status --json`'s (report/job-totals.ts: jobs, counts,
 * creditsEstimated, creditsUsed, unknownEstimates, unknownUsed, overHighEstimate), so one script
 * reads both; the plan adds what only it knows: the estimates' range (creditsLow, creditsHigh;
 * null when every job's is unknown), and a step's mode, needs, download, priority and retries.
 */
export function planToJson(plan: Plan, recordOf?: RecordOf, frame: PlanJsonFrame = {}): object {
  const sums = stepsAndTotals(plan, recordOf);
  const jobs: object[] = [];
  for (const job of plan.jobs) jobs.push(jobJson(plan, job, recordOf));
  return { ...head(plan, frame, sums.steps), jobs, ...tail(plan, frame, sums.totals) };
}

/** Why a size: big enough that 100,000 jobs are a few hundred writes, small enough to stay flat. */
const CHUNK_CHARS = 64 * 1024;

/**
 * The text of `JSON.stringify(planToJson(plan), null, 2)` and a newline, in chunks, one job at a
 * time: a 100,000-job plan never exists as one string (nor as a second copy of every job). Two
 * passes over the jobs: the sums the head carries, then the jobs.
 */
export function* planJsonChunks(plan: Plan, recordOf?: RecordOf, frame: PlanJsonFrame = {}): Generator<string> {
  const sums = stepsAndTotals(plan, recordOf);
  // The head without its closing "\n}", then the jobs, then the tail without its opening "{".
  let buffer = `${JSON.stringify(head(plan, frame, sums.steps), null, 2).slice(0, -2)},\n  "jobs": [`;
  let i = 0;
  for (const planned of plan.jobs) {
    const job = JSON.stringify(jobJson(plan, planned, recordOf), null, 2);
    buffer += `${i++ === 0 ? '' : ','}\n    ${job.replaceAll('\n', '\n    ')}`;
    if (buffer.length >= CHUNK_CHARS) {
      yield buffer;
      buffer = '';
    }
  }
  yield `${buffer}${plan.jobs.length === 0 ? ']' : '\n  ]'},${JSON.stringify(tail(plan, frame, sums.totals), null, 2).slice(1)}\n`;
}

/** A step's or the plan's estimates' range: the known figures summed, null when every job's is unknown. */
const range = (credits: CreditTotal | null) => ({ creditsLow: credits?.low ?? null, creditsHigh: credits?.high ?? null });

/** Each step's totals and the plan's, as status --json gives them (one pass over the jobs), with the plan's own fields. */
function stepsAndTotals(plan: Plan, recordOf?: RecordOf) {
  const byStep = new Map(plan.steps.map((step) => [step.id, new JobTotalsSum()]));
  const all = new JobTotalsSum();
  for (const job of plan.jobs) {
    const record = recordOf?.(job.key);
    const totalled: TotalledJob = {
      state: record?.state ?? NEW,
      creditsEstimated: job.credits?.expected ?? null,
      creditsUsed: record ? record.creditsUsed : 0,
      overHighEstimate: overrunOf(job, record?.creditsCharged) !== null,
    };
    byStep.get(job.step)?.add(totalled);
    all.add(totalled);
  }
  return {
    steps: plan.steps.map(({ id, kind, mode, credits, needs, download, priority, retries }) => ({
      id, kind, ...(mode ? { mode } : {}), ...(byStep.get(id) ?? new JobTotalsSum()).totals(), ...range(credits), needs, download, priority, retries,
    })),
    totals: { ...all.totals(), ...range(plan.totals.credits) },
  };
}

/** The totals as `status --json` gives them: the manifest's whole spend in place of its jobs' sum, when the state is known. */
function withMoney(totals: object, money: PlanJsonFrame['money']): object {
  if (!money) return totals;
  return { ...totals, creditsUsed: money.used.unknown > 0 && money.used.known === 0 ? null : money.used.known, unknownUsed: money.used.unknown, creditsApart: money.apart, refunded: money.refunded };
}

const head = (plan: Plan, frame: PlanJsonFrame, steps: object[]) => ({
  name: plan.name,
  manifest: plan.manifestPath,
  ...(frame.stateDb === undefined ? {} : { stateDb: frame.stateDb }),
  outputsDir: plan.outputsDir,
  concurrency: plan.concurrency,
  kindConcurrency: plan.kindConcurrency,
  budget: plan.budget,
  steps,
});

const tail = (plan: Plan, { stateDb: _, money, ...outcome }: PlanJsonFrame, totals: object) => ({ totals: withMoney(totals, money), duplicates: plan.duplicates, warnings: plan.warnings, ...outcome });


function jobJson(plan: Plan, job: PlannedJob, recordOf?: RecordOf): object {
  const record = recordOf?.(job.key);
  return {
    key: job.key,
    label: job.label,
    step: job.step,
    kind: job.kind,
    ...(job.mode ? { mode: job.mode } : {}),
    state: record?.state ?? NEW,
    dbStatus: record?.status ?? null,
    remoteId: record?.remoteId ?? null,
    origin: job.origin ?? null,
    credits: job.credits,
    // The same figures under the names `status --json` gives them, so one script reads both.
    creditsEstimated: job.credits?.expected ?? null,
    creditsHigh: job.credits?.high ?? null,
    // A job never sent cost nothing; one sent but not (yet) priced by the service is null.
    creditsUsed: record ? record.creditsUsed : 0,
    submittedAt: iso(record?.submittedAt),
    finishedAt: iso(record?.finishedAt),
    downloadedAt: iso(record?.downloadedAt),
    outputs: (record?.outputs ?? []).map((o) => resolve(plan.outputsDir, o.path)),
    outputName: job.outputName,
    download: job.download,
    priority: job.priority,
    ...(job.pathId !== undefined ? { pathId: job.pathId } : {}),
    refs: job.refs,
    request: job.request,
  };
}
