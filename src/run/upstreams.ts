import type { JobIndex } from '../plan/job-index.js';
import type { PlanIndex } from '../plan/plan-index.js';
import type { Plan, PlannedJob } from '../plan/types.js';
import { deferred, type Deferred } from './deferred.js';
import type { JobOutcome } from './drive-job.js';

const PENDING = 0;
const OUTCOMES: readonly JobOutcome[] = ['ok', 'failed', 'unfinished'];

/**
 * What a job waits for before it may be submitted — the jobs its references bind to, and every
 * job of the steps its step needs — and how each job of the plan ended in this drive, a byte by
 * its place in the plan. Why a byte and not a promise per job: a run of 100,000 jobs held a
 * deferred for every job another job needed (issue 24: nothing per job beyond a compact index).
 * A promise is made only for a job some job is waiting on now, and for each step waited on whole.
 *
 * A job settles once (the first outcome stands); a job not in the plan, or settled before the
 * drive (found finished), counts as `ok` for the jobs that need it. `elsewhere`: on a shared run,
 * how a job another member drives ended (members.ts), raced with this member's own settling.
 */
export class Upstreams {
  private readonly outcomes: Uint8Array;
  private readonly waiters = new Map<number, Deferred<JobOutcome>>();
  private readonly steps = new Map<string, Promise<JobOutcome>>();
  private readonly stepNeeds: Map<string, readonly string[]>;

  constructor(
    private readonly plan: Pick<Plan, 'steps' | 'jobs'> & { index?: PlanIndex },
    private readonly places: Pick<JobIndex<unknown>, 'ordinal'>,
    private readonly elsewhere: ((key: string) => Promise<JobOutcome> | null) | null = null,
  ) {
    this.outcomes = new Uint8Array(plan.jobs.length);
    this.stepNeeds = new Map(plan.steps.map((step) => [step.id, step.needs]));
  }

  /** Whether `job` waits for any job. */
  waits(job: PlannedJob): boolean {
    return job.refs.length > 0 || (this.stepNeeds.get(job.step) ?? []).length > 0;
  }

  /** How the jobs `job` needs ended: `ok` once every one is, else how the first of them (in order) ended. */
  async of(job: PlannedJob): Promise<JobOutcome> {
    const waits = [...job.refs.map((ref) => this.one(ref.jobKey)), ...(this.stepNeeds.get(job.step) ?? []).map((step) => this.step(step))];
    const outcomes = await Promise.all(waits);
    return outcomes.find((outcome) => outcome !== 'ok') ?? 'ok';
  }

  /** Job `key` ended so in this drive (its first outcome stands). */
  settle(key: string, outcome: JobOutcome): void {
    const place = this.places.ordinal(key);
    if (place === undefined || this.outcomes[place] !== PENDING) return;
    this.outcomes[place] = OUTCOMES.indexOf(outcome) + 1;
    const waiter = this.waiters.get(place);
    if (waiter) {
      this.waiters.delete(place);
      waiter.resolve(outcome);
    }
  }

  private one(key: string): Promise<JobOutcome> {
    const place = this.places.ordinal(key);
    if (place === undefined) return Promise.resolve('ok');
    const code = this.outcomes[place] as number;
    if (code !== PENDING) return Promise.resolve(OUTCOMES[code - 1] as JobOutcome);
    let waiter = this.waiters.get(place);
    if (!waiter) this.waiters.set(place, (waiter = deferred<JobOutcome>()));
    const there = this.elsewhere?.(key);
    return there ? Promise.race([waiter.promise, there]) : waiter.promise;
  }

  /** Every job of `step`, waited on once for all the jobs that need the step. */
  private step(step: string): Promise<JobOutcome> {
    let waited = this.steps.get(step);
    if (!waited) {
      waited = Promise.all(Array.from(this.keysOf(step), (key) => this.one(key))).then((outcomes) => outcomes.find((o) => o !== 'ok') ?? 'ok');
      this.steps.set(step, waited);
    }
    return waited;
  }

  /** The keys of a step's jobs, in plan order (from the plan's index when it has one: no job made). */
  private *keysOf(step: string): Generator<string> {
    const { index } = this.plan;
    if (index) {
      for (let place = 0; place < index.size; place++) if (index.step(place) === step) yield index.key(place);
    } else for (const job of this.plan.jobs) if (job.step === step) yield job.key;
  }
}
