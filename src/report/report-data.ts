import type { CreditTotal, Plan, PlannedJob } from '../plan/types.js';
import type { JobStatus, MemberState, MoneySums } from '../state/index.js';
import type { StateWord } from '../state/vocabulary.js';
import type { AttemptFact } from './attempt-facts.js';
import { overrunOf, type CreditSum } from './credits.js';
import type { HookFacts } from './hook-facts.js';
import type { JobFacts, JobItemFact } from './job-facts.js';
import { jobWords } from './job-words.js';
import { mediaOf, type Media } from './media.js';
import type { LastWork, RunInfo } from './run-info.js';

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

/** The run heading the report, as shown: without the set of the keys it changed (each job says it: ReportJob.inRun). */
export type ReportRun = Omit<RunInfo, 'jobKeys'>;

/** What the report says of the whole plan: everything but its jobs, one by one (written a window at a time). */
export interface ReportHead {
  name: string;
  manifest: string;
  outputsDir: string;
  stateDb: string;
  generatedAt: number;
  run: ReportRun | null;
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
  /** The manifest's newest on_finish hook run (of an earlier run: a run's own runs after its report). */
  onFinish: HookFacts | null;
  /** The hosts (processes) of the newest run, with where each stands and the jobs whose newest attempt it made: one unless several hosts shared it. */
  hosts: { host: string; runId: number; state: MemberState; jobs: number }[];
  /** The jobs a person has to see to (report-tally.ts ATTENTION): the first of them in plan order, and how many there are. */
  attention: { jobs: ReportJob[]; count: number };
}

/** The report whole, its jobs held: what the renderers take for a small report (and the tests). */
export interface ReportData extends ReportHead {
  jobs: readonly ReportJob[];
}

export interface ReportInput {
  plan: Plan;
  statePath: string;
  /** The run that heads the report. @default the manifest's newest run */
  runId?: number;
  /** When the report is made (epoch ms). @default Date.now() */
  now?: number;
  /** The money of the plan's jobs (and each run's) as the same run read it then (RunResult.money): its totals and runs' figures. @default read from the database */
  money?: MoneySums;
}

/** What the report shows of a job besides its planned self and its facts. */
export interface JobExtras {
  hooks: HookFacts[];
  inRun: boolean;
  host: string | null;
}

/** `job` as the report shows it, with what the state knows of it (`f`). */
export function reportJobOf(job: PlannedJob, f: JobFacts, extras: JobExtras): ReportJob {
  return {
    key: job.key, label: job.label, step: job.step, kind: job.kind, origin: job.origin ?? null,
    row: job.row ?? null, matrix: job.matrix ?? null, words: jobWords(job),
    state: f.state, status: f.status, remoteId: f.remoteId,
    estimate: job.credits && { low: job.credits.low, expected: job.credits.expected, high: job.credits.high },
    used: f.creditsUsed, overHigh: overrunOf(job, f.creditsCharged) !== null,
    submittedAt: f.submittedAt, finishedAt: f.finishedAt, downloadedAt: f.downloadedAt,
    outputs: f.outputs.map(reportOutput),
    reason: f.doubtReason ?? f.failedReason,
    inRun: extras.inRun,
    hooks: extras.hooks,
    items: f.items,
    history: f.history.map((v) => ({ key: v.key, used: v.creditsUsed, outputs: v.outputs.map(reportOutput) })),
    attempts: f.attempts,
    host: extras.host,
  };
}

const reportOutput = (o: { path: string; contentType: string | null; bytes: number | null }): ReportOutput =>
  ({ path: o.path.split('\\').join('/'), media: mediaOf(o.path, o.contentType), bytes: o.bytes });
