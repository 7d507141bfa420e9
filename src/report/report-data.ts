import type { CreditTotal, Plan } from '../plan/types.js';
import { memberState, stateAt, type MoneySums, type JobState, type JobStatus, type MemberState } from '../state/index.js';
import { overrunOf, sumCredits, type CreditSum } from './credits.js';
import { readJobFacts, type JobFacts, type JobItemFact } from './job-facts.js';
import type { AttemptFact } from './attempt-facts.js';
import { readHookFacts, type HookFacts } from './hook-facts.js';
import { mediaOf, type Media } from './media.js';
import { jobWords } from './job-words.js';
import { readLastWork, readRun, wholeRun, type LastWork, type RunInfo } from './run-info.js';
import { countWords, type StateWord } from '../state/vocabulary.js';

/** One file of a job in the report. */
export interface ReportOutput {
  /** Relative to the outputs folder, `/`-separated. */
  path: string;
  media: Media;
  bytes: number | null;
}

/** One job as the report, results.csv and results.json show it. Unknown figures and times are null. */
export interface ReportJob {
  key: string;
  label: string;
  step: string;
  kind: string;
  origin: string | null;
  /** The input row and matrix combination the job was made from (by reference, not copied). */
  row: Record<string, unknown> | null;
  matrix: Record<string, unknown> | null;
  /** What the job is, in its row's own words (a script, a prompt, a title), at most 200 characters; null when its kind has none (job-words.ts). */
  words: string | null;
  state: StateWord;
  status: JobStatus | null;
  remoteId: string | null;
  estimate: { low: number; expected: number; high: number } | null;
  used: number | null;
  /** The service charged more than the high estimate. */
  overHigh: boolean;
  submittedAt: number | null;
  finishedAt: number | null;
  downloadedAt: number | null;
  outputs: ReportOutput[];
  /** The service's reason it failed or was refused, or why it is held in doubt. */
  reason: string | null;
  /** The report's run changed it. */
  inRun: boolean;
  /** Its output hook's newest run per file (docs/hooks.md). */
  hooks: HookFacts[];
  /** Its items (an HTML ad per style) with their ends and reasons; empty for other kinds. */
  items: readonly JobItemFact[];
  /** Its earlier versions (the jobs of its row before an edit): key, cost, kept files. */
  history: { key: string; used: number | null; outputs: ReportOutput[] }[];
  /** Its attempts, oldest first: each creating request, how it ended, why, what it cost. */
  attempts: readonly AttemptFact[];
  /** The host whose process made the job's newest attempt in the newest run (a run several hosts share names each); null otherwise. */
  host: string | null;
}

export interface StepSummary {
  id: string;
  kind: string;
  jobs: number;
  counts: Partial<Record<StateWord, number>>;
  estimate: CreditTotal | null;
  unknownEstimates: number;
  used: CreditSum;
  overHigh: number;
  /** Median seconds from submitted to finished, over the jobs that have both. */
  medianSeconds: number | null;
}

export interface ReportData {
  name: string;
  manifest: string;
  outputsDir: string;
  stateDb: string;
  generatedAt: number;
  run: RunInfo | null;
  /** The manifest's newest run and its newest that changed a job: what the header says last did work. */
  lastWork: LastWork;
  maxCredits: number | null;
  steps: StepSummary[];
  /**
   * The plan's jobs summed, but `used`: what the service charged the manifest over every remote job
   * it ever made (state/sqlite/money.ts), so it equals the service's own figure; `apart`, what of it went
   * to no job of the plan; `refunded`, refunds recorded for failed items.
   */
  totals: Omit<StepSummary, 'id' | 'kind' | 'medianSeconds'> & { outputs: number; apart: { superseded: number; removed: number; forgotten: number }; refunded: { total: number; derived: number } };
  jobs: ReportJob[];
  /** The manifest's newest on_finish hook run (of an earlier run: a run's own runs after its report). */
  onFinish: HookFacts | null;
  /** The hosts (processes) of the newest run, with where each stands and the jobs whose newest attempt it made: one unless several hosts shared it. */
  hosts: { host: string; runId: number; state: MemberState; jobs: number }[];
}

export interface ReportInput {
  plan: Plan;
  statePath: string;
  /** The run that heads the report. @default the manifest's newest run */
  runId?: number;
  /** When the report is made (epoch ms). @default Date.now() */
  now?: number;
  /**
   * The jobs as a run read them from the state database at its end (RunResult.jobs), after its
   * last write to them: not read again when they cover the whole plan. @default read from the database
   */
  jobs?: readonly JobState[];
  /** The money of the plan's jobs (and each run's) as the same run read it then (RunResult.money). @default read from the database */
  money?: MoneySums;
}

/** The report's data: the plan joined with what the state database holds. Reads only. */
export async function buildReportData({ plan, statePath, runId, now = Date.now(), jobs: knownRows, money: knownMoney }: ReportInput): Promise<ReportData> {
  const { facts, money, runs } = await readJobFacts(statePath, plan, { rows: knownRows, money: knownMoney });
  const members = await stateAt(statePath).members(plan.manifestId);
  // A run several hosts shared heads the report as one run: every member's jobs and credits.
  const member = await readRun(statePath, plan.manifestId, runId, runs);
  const run = member && (await wholeRun(statePath, plan.manifestId, member, members, runs));
  const hooks = await readHookFacts(statePath, plan.manifestId);
  // The run read by default is the newest that started: what the header's last work is told of first.
  const lastWork = await readLastWork(statePath, plan.manifestId, runId === undefined ? member : null);
  const hostOfRun = new Map(members.map((m) => [m.runId, m.host]));
  const jobs: ReportJob[] = [];
  for (const job of plan.jobs) {
    const f = facts.get(job.key) as JobFacts;
    jobs.push({
      key: job.key, label: job.label, step: job.step, kind: job.kind, origin: job.origin ?? null,
      row: job.row ?? null, matrix: job.matrix ?? null, words: jobWords(job),
      state: f.state, status: f.status, remoteId: f.remoteId,
      estimate: job.credits && { low: job.credits.low, expected: job.credits.expected, high: job.credits.high },
      used: f.creditsUsed, overHigh: overrunOf(job, f.creditsCharged) !== null,
      submittedAt: f.submittedAt, finishedAt: f.finishedAt, downloadedAt: f.downloadedAt,
      outputs: f.outputs.map(reportOutput),
      reason: f.doubtReason ?? f.failedReason,
      inRun: run?.jobKeys.has(job.key) ?? false,
      hooks: hooks.byJob.get(job.key) ?? [],
      items: f.items,
      history: f.history.map((v) => ({ key: v.key, used: v.creditsUsed, outputs: v.outputs.map(reportOutput) })),
      attempts: f.attempts,
      host: hostOfRun.get(f.attempts.at(-1)?.runId ?? -1) ?? null,
    });
  }
  const steps = plan.steps.map((s): StepSummary => {
    const mine = jobs.filter((j) => j.step === s.id);
    return { id: s.id, kind: s.kind, ...summarise(mine, s.credits, s.unknownJobs), medianSeconds: medianSeconds(mine) };
  });
  const totals = {
    ...summarise(jobs, plan.totals.credits, plan.totals.unknownJobs),
    used: { known: money.used.known, unknownJobs: money.used.unknown, jobs: money.used.unknown + (money.used.known > 0 || money.used.unknown === 0 ? 1 : 0) },
    outputs: jobs.reduce((n, j) => n + j.outputs.length, 0),
    apart: money.apart,
    refunded: money.refunded,
  };
  return {
    name: plan.name, manifest: plan.manifestPath, outputsDir: plan.outputsDir, stateDb: statePath, generatedAt: now,
    run, lastWork, maxCredits: plan.budget.maxCredits, steps, totals, jobs, onFinish: hooks.onFinish,
    hosts: members.map((m) => ({ host: m.host, runId: m.runId, state: memberState(m, now), jobs: jobs.filter((j) => j.host !== null && j.attempts.at(-1)?.runId === m.runId).length })),
  };
}

const reportOutput = (o: { path: string; contentType: string | null; bytes: number | null }): ReportOutput =>
  ({ path: o.path.split('\\').join('/'), media: mediaOf(o.path, o.contentType), bytes: o.bytes });

function summarise(jobs: readonly ReportJob[], estimate: CreditTotal | null, unknownEstimates: number) {
  return {
    jobs: jobs.length,
    counts: countWords(jobs.map((j) => j.state)),
    estimate,
    unknownEstimates,
    used: sumCredits(jobs.map((j) => j.used)),
    overHigh: jobs.filter((j) => j.overHigh).length,
  };
}

function medianSeconds(jobs: readonly ReportJob[]): number | null {
  const spans = jobs.flatMap((j) => (j.submittedAt !== null && j.finishedAt !== null ? [(j.finishedAt - j.submittedAt) / 1000] : []));
  if (spans.length === 0) return null;
  spans.sort((a, b) => a - b);
  const mid = Math.floor(spans.length / 2);
  return spans.length % 2 ? (spans[mid] as number) : ((spans[mid - 1] as number) + (spans[mid] as number)) / 2;
}
