import { resolve } from 'node:path';
import type { Plan } from '../plan/types.js';
import type { JobStatus } from '../state/index.js';
import { formatCredits, plural } from '../util/format.js';
import { apartParts } from '../plan/budget.js';
import { overrunOf, pairText } from './credits.js';
import { totalsOf, type JobTotals } from './job-totals.js';
import { readJobFacts, type JobFactsOf } from './job-facts.js';
import type { AttemptFact } from './attempt-facts.js';
import { hookOutcomeText, readHookFacts, type HookFacts } from './hook-facts.js';
import { readRunHistory } from './run-history.js';
import { countsText, type StateWord } from '../state/vocabulary.js';
import { utcIsoOrNull as iso } from '../util/time-format.js';
import { dependencies } from '../run/dependencies.js';
import { standingOf } from '../run/standing.js';

/** One job as `status` shows it. Unknown figures and times are null, never 0. */
export interface JobStatusLine {
  key: string;
  label: string;
  step: string;
  kind: string;
  /** The host whose run made the job's newest attempt (REELPIPE_HOST, else its hostname); null when it was never sent (or that run is older than the newest 1,000). */
  host: string | null;
  /** `scripts.csv:14`, for a job made from a row. */
  origin: string | null;
  /** The word for its state (src/state/vocabulary.ts). */
  state: StateWord;
  /**
   * The state database's own name for its status (docs/report.md#states), null when it has never
   * recorded the job. Named apart from `state` on purpose: the database's `done` is the word
   * `finished`, and a script filtering on it must not mistake one for the other.
   */
  dbStatus: JobStatus | null;
  remoteId: string | null;
  creditsEstimated: number | null;
  creditsHigh: number | null;
  creditsUsed: number | null;
  /** The service charged more than the high estimate. */
  overHighEstimate: boolean;
  /** ISO 8601 times; null until they happen. */
  submittedAt: string | null;
  finishedAt: string | null;
  downloadedAt: string | null;
  outputs: string[];
  failedReason: string | null;
  /** Why the job is held in doubt (null unless in doubt). */
  doubtReason: string | null;
  /** Not submitted because it waits on these jobs in doubt, which only a person can settle (run/standing.ts); else empty. */
  waitsOnDoubt: readonly string[];
  /** Its output hook's newest run per file (docs/hooks.md); empty when none ran. */
  hooks: HookFacts[];
  /** Its items (an HTML ad per style) with their ends, reasons, refunds and files; empty for other kinds. */
  items: StatusItem[];
  /** Its earlier versions (the jobs of its row before an edit), with what they cost and their kept files. */
  history: { key: string; creditsUsed: number | null; outputs: string[] }[];
  /** Its step's priority: higher goes first among the jobs ready to send. */
  priority: number;
  /**
   * Its attempts, oldest first — each creating request: when (ISO 8601), the remote job, how it
   * ended, why, its credits, and the run that resubmitted the job after it (`retries`) — empty
   * until one is sent.
   */
  attempts: StatusAttempt[];
}

/** One attempt of a job, as `status --json` gives it (report/attempt-facts.ts). */
export type StatusAttempt = Omit<AttemptFact, 'at'> & { at: string };

/** One item of a job, as `status --json` gives it. */
export interface StatusItem {
  item: string;
  state: 'done' | 'failed';
  reason: string | null;
  refunded: number;
  /** The refund comes from the price rule: the service reports only the job's credits_used. */
  refundDerived: boolean;
  output: string | null;
}

/**
 * The manifest's totals: the jobs' (as every step's), with `creditsUsed` the manifest's whole spend —
 * every remote job it ever made, so it equals what the service charged — and, of it, what went to no
 * job of the plan (`creditsApart`) and the refunds recorded (`refunded`).
 */
export type StatusTotals = JobTotals & {
  creditsApart: { superseded: number; removed: number; forgotten: number };
  refunded: { total: number; derived: number };
};

export interface StatusReport {
  manifest: string;
  stateDb: string;
  steps: ({ id: string; kind: string } & JobTotals)[];
  totals: StatusTotals;
  jobs: JobStatusLine[];
  /** The newest run of the manifest's on_finish hook; null when it never ran. */
  onFinish: HookFacts | null;
}


/** Reads (never writes, never locks) the state of every job of `plan`. */
/** How many of the manifest's newest runs name the hosts of its jobs' attempts. */
const HOSTS_FROM_RUNS = 1000;

/** The host of the run that made the newest of `attempts`. */
function hostOf(attempts: readonly AttemptFact[], hosts: ReadonlyMap<number, string>): string | null {
  const runId = attempts.at(-1)?.runId;
  return runId === undefined || runId === null ? null : (hosts.get(runId) ?? null);
}

export async function buildStatusReport(plan: Plan, dbPath: string): Promise<StatusReport> {
  const { facts, money } = await readJobFacts(dbPath, plan);
  const hooks = await readHookFacts(dbPath, plan.manifestId);
  const waiting = waitingOnDoubt(plan, facts);
  const hosts = new Map((await readRunHistory(dbPath, plan.manifestId, HOSTS_FROM_RUNS, true)).runs.map((run) => [run.id, run.host]));
  const jobs: JobStatusLine[] = [];
  for (const job of plan.jobs) {
    const f = facts.get(job.key);
    jobs.push({
      key: job.key,
      label: job.label,
      step: job.step,
      kind: job.kind,
      host: hostOf(f?.attempts ?? [], hosts),
      origin: job.origin ?? null,
      state: f?.state ?? 'not submitted',
      dbStatus: f?.status ?? null,
      remoteId: f?.remoteId ?? null,
      creditsEstimated: job.credits?.expected ?? null,
      creditsHigh: job.credits?.high ?? null,
      creditsUsed: f ? f.creditsUsed : 0,
      overHighEstimate: overrunOf(job, f?.creditsCharged) !== null,
      submittedAt: iso(f?.submittedAt ?? null),
      finishedAt: iso(f?.finishedAt ?? null),
      downloadedAt: iso(f?.downloadedAt ?? null),
      outputs: (f?.outputs ?? []).map((o) => resolve(plan.outputsDir, o.path)),
      failedReason: f?.failedReason ?? null,
      doubtReason: f?.doubtReason ?? null,
      waitsOnDoubt: waiting.get(job.key) ?? [],
      hooks: hooks.byJob.get(job.key) ?? [],
      items: (f?.items ?? []).map((i) => ({
        item: i.item, state: i.state, reason: i.reason, refunded: i.refunded, refundDerived: i.refundDerived, output: i.path && resolve(plan.outputsDir, i.path),
      })),
      history: (f?.history ?? []).map((v) => ({ key: v.key, creditsUsed: v.creditsUsed, outputs: v.outputs.map((o) => resolve(plan.outputsDir, o.path)) })),
      priority: job.priority,
      attempts: (f?.attempts ?? []).map((a) => ({ ...a, at: iso(a.at) as string })),
    });
  }
  const steps = plan.steps.map((step) => ({ id: step.id, kind: step.kind, ...totalsOf(jobs.filter((j) => j.step === step.id)) }));
  const totals: StatusTotals = {
    ...totalsOf(jobs),
    creditsUsed: money.used.unknown > 0 && money.used.known === 0 ? null : money.used.known,
    unknownUsed: money.used.unknown,
    creditsApart: money.apart,
    refunded: money.refunded,
  };
  return { manifest: plan.manifestPath, stateDb: dbPath, steps, totals, jobs, onFinish: hooks.onFinish };
}

/** The jobs in doubt each job not submitted waits on, as the run's exit code sees them (run/standing.ts). */
function waitingOnDoubt(plan: Plan, facts: JobFactsOf): Map<string, readonly string[]> {
  const rows: { key: string; status: JobStatus; remoteId: string | null; failedReason: string | null }[] = [];
  for (const job of plan.jobs) {
    const f = facts.get(job.key);
    if (f?.status) rows.push({ key: job.key, status: f.status, remoteId: f.remoteId, failedReason: f.failedReason });
  }
  if (!rows.some((row) => row.status === 'in_doubt')) return new Map();
  return new Map(standingOf(plan, new Map(rows.map((row) => [row.key, row])), dependencies(plan)).waitingOnDoubt.map((w) => [w.key, w.on]));
}

/** `credits used 12, estimated unknown`, and how many jobs cost more than their high estimate. */
function creditLine(t: JobTotals): string {
  const over = t.overHighEstimate > 0 ? `; ${t.overHighEstimate} over the high estimate` : '';
  return `credits used ${pairText(t.creditsUsed, t.unknownUsed)}, estimated ${pairText(t.creditsEstimated, t.unknownEstimates)}${over}`;
}

/** The human form: a line per step, the totals, then every job with its label, files and, if any, why it failed or is in doubt. */
export function renderStatus(report: StatusReport): string {
  const lines = [`${report.manifest} (state ${report.stateDb})`];
  for (const step of report.steps) {
    lines.push(`  ${step.id.padEnd(20)} ${step.kind.padEnd(18)} ${countsText(step.counts).padEnd(36)} ${creditLine(step)}`);
  }
  const apart = apartParts(report.totals.creditsApart);
  lines.push(`total: ${plural(report.totals.jobs, 'job')} — ${countsText(report.totals.counts)}; ${creditLine(report.totals)}${apart.length ? ` (of the credits used: ${apart.join(', ')})` : ''}`);
  lines.push('jobs:');
  const labels = new Map(report.jobs.map((job) => [job.key, job.label]));
  for (const job of report.jobs) {
    const credits = job.creditsUsed === null ? (job.dbStatus === null ? '' : ' cost unknown') : ` ${formatCredits(job.creditsUsed)} cr`;
    const over = job.overHighEstimate ? ` (over the high estimate ${formatCredits(job.creditsHigh ?? 0)})` : '';
    const files = job.outputs.length ? `  ${job.outputs.join(', ')}` : '';
    const waits = job.waitsOnDoubt.map((key) => `${labels.get(key) ?? key} (${key})`).join(', ');
    const reason = job.doubtReason ? `  in doubt: ${job.doubtReason}` : job.failedReason ? `  ${job.failedReason}` : waits ? `  waits on a job in doubt: ${waits}` : '';
    lines.push(`  ${job.label}  ${job.key}  ${job.kind}  ${job.state}${job.remoteId ? `  ${job.remoteId}` : ''}${credits}${over}${files}${reason}`);
    for (const item of job.items) if (item.state === 'failed') lines.push(`    item ${item.item} FAILED: ${(item.reason ?? 'no reason given').replace(/\.$/, '')}${refundText(item)}`);
    if (job.attempts.length > 1) job.attempts.forEach((a, i) => lines.push(`    ${attemptText(a, i)}`));
    for (const version of job.history) lines.push(`    earlier version ${version.key}: ${version.creditsUsed === null ? 'cost unknown' : `${formatCredits(version.creditsUsed)} cr`}${version.outputs.length ? `  ${version.outputs.join(', ')}` : ''}`);
    for (const hook of job.hooks) lines.push(...hookLines(`on_output file ${hook.outputIdx ?? 0}`, hook));
  }
  if (report.onFinish) lines.push(...hookLines(`on_finish${report.onFinish.runId === null ? '' : ` (run #${report.onFinish.runId})`}`, report.onFinish, ''));
  return `${lines.join('\n')}\n`;
}

/** `attempt 1 2026-03-01T02:00:00.000Z 7d11…: failed (Render failed), 5 cr, retried by run #3` — one attempt of a job of several. */
export function attemptText(a: Omit<AttemptFact, 'at'> & { at: string | number }, i: number): string {
  const at = typeof a.at === 'number' ? iso(a.at) : a.at;
  const cost = a.credits === null ? 'cost unknown' : `${formatCredits(a.credits)} cr`;
  const retried = a.retriedInRun === null ? '' : `, retried by run #${a.retriedInRun}`;
  return `attempt ${i + 1} ${at}${a.remoteId ? ` ${a.remoteId}` : ''}: ${a.ended}${a.reason ? ` (${a.reason.replace(/\.$/, '')})` : ''}, ${cost}${retried}`;
}

/** ` (refunded 10, derived from the price rule)`, or nothing. */
export const refundText = (item: Pick<StatusItem, 'refunded' | 'refundDerived'>): string =>
  item.refunded > 0 ? ` (refunded ${formatCredits(item.refunded)}${item.refundDerived ? ', derived from the price rule' : ''})` : '';

/** Why up to 5 lines: enough for the message a failing command ends with; --json has the whole tail. */
const TAIL_LINES = 5;

/** A hook's outcome, and for one that did not succeed, the end of what it printed. */
function hookLines(what: string, hook: HookFacts, indent = '    '): string[] {
  const lines = [`${indent}${what}: ${hookOutcomeText(hook)}`];
  if (hook.state === 'ok') return lines;
  for (const [name, text] of [['stderr', hook.stderrTail], ['stdout', hook.stdoutTail]] as const) {
    const last = text.trimEnd().split('\n').slice(-TAIL_LINES).filter((l) => l.trim() !== '');
    if (last.length > 0) lines.push(`${indent}  ${name}: ${last.join(`\n${indent}          `)}`);
  }
  return lines;
}
