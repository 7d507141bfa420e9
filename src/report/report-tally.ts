import type { Plan } from '../plan/types.js';
import { memberState, type MemberRow, type MoneyTotals } from '../state/index.js';
import type { StateWord } from '../state/vocabulary.js';
import type { CreditSum } from './credits.js';
import type { ReportHead, ReportJob, StepSummary } from './report-data.js';

/** Listed in full up to this many; the rest are in results.csv (a long list would bury the page). */
export const ATTENTION_MAX = 200;
/** What the failures section lists: a person has something to do about each (docs/report.md#states says what). */
const ATTENTION: readonly StateWord[] = ['failed', 'partly failed', 'rejected', 'in doubt', 'hook failed', 'finished'];

export const needsAttention = (job: Pick<ReportJob, 'state'>): boolean => ATTENTION.includes(job.state);

/** The head's figures that are the manifest's money, not its jobs' sum (ReportHead.totals). */
export function moneyTotals(money: MoneyTotals): Pick<ReportHead['totals'], 'used' | 'apart' | 'refunded'> {
  const { known, unknown } = money.used;
  return { used: { known, unknownJobs: unknown, jobs: unknown + (known > 0 || unknown === 0 ? 1 : 0) }, apart: money.apart, refunded: money.refunded };
}

/**
 * The report's figures over the whole plan — per step and in all: jobs per state, credits used,
 * jobs over their estimate, the median time — and the jobs needing a person, summed a job at a
 * time as the windows pass (write-report.ts), in plan order, so each sum adds as summing a list
 * of every job did. What it keeps of a job is its seconds from submitted to finished (8 bytes,
 * for its step's median) and, for the first ATTENTION_MAX needing a person, the job.
 */
export class ReportTally {
  private readonly steps = new Map<string, JobSum>();
  /** The plan's, which has no median (a step's alone does). */
  private readonly all = new JobSum(false);
  private outputs = 0;
  /** Jobs by the run of their newest attempt, of those whose run has a host (one of the newest run's members). */
  private readonly ofRun = new Map<number, number>();
  private readonly attention: ReportHead['attention'] = { jobs: [], count: 0 };

  constructor(private readonly plan: Pick<Plan, 'steps' | 'totals'>) {
    for (const step of plan.steps) this.steps.set(step.id, new JobSum(true));
  }

  add(job: ReportJob): void {
    this.all.add(job);
    this.steps.get(job.step)?.add(job);
    this.outputs += job.outputs.length;
    const run = job.attempts.at(-1)?.runId;
    if (job.host !== null && run !== undefined && run !== null) this.ofRun.set(run, (this.ofRun.get(run) ?? 0) + 1);
    if (needsAttention(job)) {
      this.attention.count++;
      if (this.attention.jobs.length < ATTENTION_MAX) this.attention.jobs.push(job);
    }
  }

  /** The head: `base` (what was known before the jobs), with what the jobs summed to. */
  head(base: Omit<ReportHead, 'steps' | 'totals' | 'hosts' | 'attention'>, money: MoneyTotals, members: readonly MemberRow[]): ReportHead {
    const { plan } = this;
    const steps = plan.steps.map((s): StepSummary => {
      const sum = this.steps.get(s.id) as JobSum;
      return { id: s.id, kind: s.kind, ...sum.summary(s.credits, s.unknownJobs), medianSeconds: sum.medianSeconds() };
    });
    const totals = { ...this.all.summary(plan.totals.credits, plan.totals.unknownJobs), outputs: this.outputs, ...moneyTotals(money) };
    const hosts = members.map((m) => ({ host: m.host, runId: m.runId, state: memberState(m, base.generatedAt), jobs: this.ofRun.get(m.runId) ?? 0 }));
    return { ...base, steps, totals, hosts, attention: this.attention };
  }
}

/** Jobs summed as a step's (or the plan's) summary shows them. */
class JobSum {
  private jobs = 0;
  private readonly counts: Partial<Record<StateWord, number>> = {};
  private used = { known: 0, unknownJobs: 0 };
  private overHigh = 0;
  /** Seconds from submitted to finished, of the jobs with both (a typed array: no number object a job). */
  private spans = new Float64Array(16);
  private timed = 0;

  constructor(private readonly withMedian: boolean) {}

  add(job: ReportJob): void {
    this.jobs++;
    this.counts[job.state] = (this.counts[job.state] ?? 0) + 1;
    if (job.used === null) this.used.unknownJobs++;
    else this.used.known += job.used;
    if (job.overHigh) this.overHigh++;
    if (!this.withMedian || job.submittedAt === null || job.finishedAt === null) return;
    if (this.timed === this.spans.length) {
      const grown = new Float64Array(this.spans.length * 2);
      grown.set(this.spans);
      this.spans = grown;
    }
    this.spans[this.timed++] = (job.finishedAt - job.submittedAt) / 1000;
  }

  summary(estimate: StepSummary['estimate'], unknownEstimates: number) {
    const used: CreditSum = { known: Math.round(this.used.known * 100) / 100, unknownJobs: this.used.unknownJobs, jobs: this.jobs };
    return { jobs: this.jobs, counts: this.counts, estimate, unknownEstimates, used, overHigh: this.overHigh };
  }

  medianSeconds(): number | null {
    if (this.timed === 0) return null;
    const spans = this.spans.subarray(0, this.timed).sort();
    const mid = Math.floor(this.timed / 2);
    return this.timed % 2 ? (spans[mid] as number) : ((spans[mid - 1] as number) + (spans[mid] as number)) / 2;
  }
}
