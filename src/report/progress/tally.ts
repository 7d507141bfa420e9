import type { Plan } from '../../plan/types.js';
import { jobIndex, type JobIndex } from '../../plan/job-index.js';
import type { PlanIndex } from '../../plan/plan-index.js';
import { statusCode, statusOfCode, type JobStatus } from '../../state/job-status.js';
import { countWords, stateWord, type StateWord } from '../../state/vocabulary.js';
import { sumCredits, type CreditSum } from '../credits.js';
import { usedCredits } from '../job-facts.js';

/** What progress knows of one job: from the state database at the start, then from the run's events. */
export interface JobFacts {
  key: string;
  step: string;
  status: JobStatus | null;
  creditsUsed: number | null;
  creditsPrior: number;
  submittedAt: number | null;
  finishedAt: number | null;
}

/** One step as the progress block shows it. */
export interface StepTally {
  id: string;
  jobs: number;
  counts: Partial<Record<StateWord, number>>;
  /** Jobs whose end is known: done, failed or rejected. */
  settled: number;
  credits: CreditSum;
  /** Time left, from observed durations; null until a job of the step has finished. */
  etaMs: number | null;
  /**
   * Steps taken together (the total): `etaMs` counts only the steps with a finished job, so the
   * steps with work left and none finished yet will add to it — it is a lower bound ("≥").
   */
  etaAtLeast: boolean;
  /** Jobs still to finish at the service (not submitted, submitting, submitted, running). */
  remaining: number;
  /** Median seconds from submitted to finished of the step's finished jobs (ms), or null. */
  medianMs: number | null;
}

/** A job of a step the plan does not list (never counted). */
const NO_STEP = 0xffffffff;
const statusAt = (code: number): JobStatus | null => statusOfCode(code) ?? null;

/** Words of a job still to be made: what the estimate of time left counts. */
const TO_MAKE = new Set<StateWord>(['not submitted', 'changed', 'submitting', 'submitted', 'running']);
/** Words of a job whose end is known. */
const SETTLED = new Set<StateWord>(['done', 'partly failed', 'failed', 'rejected']);
/** Statuses whose cost is final (or never coming): a job still in flight has no cost yet, only its earlier attempts'. */
const COSTED = new Set<JobStatus>(['done', 'downloaded', 'partly_failed', 'failed', 'rejected']);

/** What the tally needs of a plan (a whole Plan will do). */
export interface PlanShape {
  steps: readonly { id: string; kind: string }[];
  jobs: Iterable<{ key: string; step: string; label: string }> & { readonly length: number };
  index?: PlanIndex;
  kindConcurrency: Plan['kindConcurrency'];
}

/**
 * The run's jobs per step and state, credits so far and time left. Time left, policy: each step's
 * median time from submitted to finished, over its jobs that finished (in this run or an earlier
 * one), times the waves its remaining jobs need — ceil(remaining ÷ the step's concurrency) — less
 * the time the longest-running of them has been at the service (at most one median). Why the
 * median: one job stuck in the service's queue must not swing the estimate. Why waves: one
 * remaining job takes a whole median however high the concurrency. A step with nothing finished
 * yet has no estimate (shown as —), rather than a guess.
 */
export class ProgressTally {
  /** Each job's place in the plan (plan/job-index.ts): its slot in every array below. */
  private readonly places: JobIndex<unknown>;
  /** Each job's step, as its index in plan.steps. */
  private readonly stepOf: Uint32Array;
  /** 0: not recorded yet; else 1 + its status's index in JOB_STATUSES. */
  private readonly status: Uint8Array;
  // Numbers a job may not have yet are NaN here, null to the reader.
  private readonly used: Float64Array;
  private readonly prior: Float64Array;
  private readonly submitted: Float64Array;
  private readonly finished: Float64Array;

  /**
   * What is kept per job is a slot in typed arrays (about 40 bytes), not an object and a map entry
   * (at 100,000 jobs, tens of megabytes held for the whole run).
   */
  constructor(
    private readonly plan: PlanShape,
    private readonly concurrency: number,
    rows: Iterable<Omit<JobFacts, 'step'>>,
  ) {
    const n = plan.jobs.length;
    this.places = jobIndex(plan);
    this.stepOf = new Uint32Array(n);
    this.status = new Uint8Array(n);
    this.used = new Float64Array(n).fill(NaN);
    this.prior = new Float64Array(n);
    this.submitted = new Float64Array(n).fill(NaN);
    this.finished = new Float64Array(n).fill(NaN);
    const stepIndex = new Map(plan.steps.map((step, i) => [step.id, i]));
    // A streamed plan's steps are read from its index (no job made).
    const { index } = plan;
    if (index) for (let place = 0; place < n; place++) this.stepOf[place] = stepIndex.get(index.step(place)) ?? NO_STEP;
    else {
      let place = 0;
      for (const job of plan.jobs) this.stepOf[place++] = stepIndex.get(job.step) ?? NO_STEP;
    }
    // Field by field: a database row also carries the job's request and answer, which progress never needs.
    for (const row of rows) this.update(row);
  }

  /** The job's status as last known (null: not recorded yet); undefined for a key the plan does not have. */
  statusOf(key: string): JobStatus | null | undefined {
    const i = this.places.ordinal(key);
    return i === undefined ? undefined : statusAt(this.status[i]!);
  }

  /**
   * A job changed status (null: not recorded yet, a start row); fields not carried keep their
   * last value. Only the facts' own fields are taken: an event also carries the job's remote id,
   * kind and detail, which progress never reads.
   */
  update(change: Partial<JobFacts> & { key: string; status: JobStatus | null }): void {
    const i = this.places.ordinal(change.key);
    if (i === undefined) return;
    this.status[i] = statusCode(change.status);
    if (change.creditsUsed !== undefined) this.used[i] = change.creditsUsed ?? NaN;
    if (change.creditsPrior !== undefined) this.prior[i] = change.creditsPrior;
    if (change.submittedAt !== undefined) this.submitted[i] = change.submittedAt ?? NaN;
    if (change.finishedAt !== undefined) this.finished[i] = change.finishedAt ?? NaN;
  }

  /** Each step at `now` (the time left counts down while the jobs in flight run). */
  steps(now: number): StepTally[] {
    const byStep = this.plan.steps.map((): number[] => []);
    for (let i = 0; i < this.stepOf.length; i++) byStep[this.stepOf[i]!]?.push(i);
    return this.plan.steps.map((step, s) => this.stepTally(step.id, step.kind, byStep[s]!, now));
  }

  /** The whole run (see sumSteps). */
  total(steps: readonly StepTally[]): StepTally {
    return sumSteps('total', steps, this.concurrency);
  }

  private facts(i: number): Omit<JobFacts, 'key' | 'step'> {
    const orNull = (value: number) => (Number.isNaN(value) ? null : value);
    return { status: statusAt(this.status[i]!), creditsUsed: orNull(this.used[i]!), creditsPrior: this.prior[i]!, submittedAt: orNull(this.submitted[i]!), finishedAt: orNull(this.finished[i]!) };
  }

  private stepTally(id: string, kind: string, places: readonly number[], now: number): StepTally {
    const jobs = places.map((i) => this.facts(i));
    const words = jobs.map((j) => stateWord(j.status));
    const remaining = words.filter((w) => TO_MAKE.has(w)).length;
    const durations = jobs.flatMap((j) => (j.finishedAt !== null && j.submittedAt !== null && COSTED.has(j.status!) ? [j.finishedAt - j.submittedAt] : []));
    const medianMs = median(durations);
    const slots = Math.min(this.concurrency, this.plan.kindConcurrency[kind as keyof PlanShape['kindConcurrency']] ?? Infinity);
    // The wave in flight is partly done: the longest-running job's time so far comes off (at most one median).
    const inFlight = jobs.filter((j, i) => TO_MAKE.has(words[i]!) && j.submittedAt !== null).map((j) => now - j.submittedAt!);
    const underway = medianMs === null ? 0 : Math.min(medianMs, Math.max(0, ...inFlight));
    return {
      id,
      jobs: jobs.length,
      counts: countWords(words),
      settled: words.filter((w) => SETTLED.has(w)).length,
      credits: sumCredits(jobs.filter((j) => j.status !== null && (COSTED.has(j.status) || j.creditsPrior > 0)).map(creditsOf)),
      etaMs: medianMs === null ? null : Math.max(0, medianMs * Math.ceil(remaining / Math.max(1, slots)) - underway),
      etaAtLeast: false,
      remaining,
      medianMs,
    };
  }
}

/** A job in flight has cost only its earlier attempts so far. */
function creditsOf(job: Omit<JobFacts, 'key' | 'step'>): number | null {
  const status = job.status!;
  return COSTED.has(status) ? usedCredits({ status, creditsUsed: job.creditsUsed, creditsPrior: job.creditsPrior }) : job.creditsPrior;
}

/**
 * Steps taken together (the run, or the steps a block has no room for): counts and credits
 * summed; time left is the longest of the steps' or their remaining work spread over the run's
 * concurrency, whichever is more. Policy: it is computed from the steps with observed durations;
 * while a step with work left has none yet (nothing of it finished), the figure leaves that step
 * out and is said as a lower bound (`etaAtLeast`), rather than guessed or withheld until every
 * step has finished a job; with no step observed, unknown.
 */
export function sumSteps(id: string, steps: readonly StepTally[], concurrency: number): StepTally {
  const counts: Partial<Record<StateWord, number>> = {};
  for (const step of steps) for (const [word, n] of Object.entries(step.counts) as [StateWord, number][]) counts[word] = (counts[word] ?? 0) + n;
  const pending = steps.filter((s) => s.remaining > 0);
  const observed = pending.filter((s) => s.etaMs !== null && s.medianMs !== null);
  const work = observed.reduce((sum, s) => sum + (s.medianMs ?? 0) * s.remaining, 0);
  const known = observed.length > 0 || pending.length === 0;
  const credits = steps.reduce((sum, s) => ({ known: sum.known + s.credits.known, unknownJobs: sum.unknownJobs + s.credits.unknownJobs, jobs: sum.jobs + s.credits.jobs }), EMPTY);
  return {
    id,
    jobs: steps.reduce((n, s) => n + s.jobs, 0),
    counts,
    settled: steps.reduce((n, s) => n + s.settled, 0),
    credits: { ...credits, known: Math.round(credits.known * 100) / 100 },
    etaMs: known ? Math.max(0, ...observed.map((s) => s.etaMs ?? 0), work / Math.max(1, concurrency)) : null,
    etaAtLeast: known && observed.length < pending.length,
    remaining: pending.reduce((n, s) => n + s.remaining, 0),
    medianMs: null,
  };
}

const EMPTY: CreditSum = { known: 0, unknownJobs: 0, jobs: 0 };

export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
