import { attachWindow, jobIndex, type JobIndex } from '../plan/job-index.js';
import type { PlanIndex } from '../plan/plan-index.js';
import { fromRecord } from '../plan/planned-record.js';
import type { Plan, PlannedJob, StepPlan } from '../plan/types.js';
import type { Store } from '../state/index.js';

/**
 * The jobs a run is driving, each as planned, read back from the state (the records syncPlan
 * kept, plan/planned-record.ts) as the run claims them, and let go when its drive ends: what the
 * run holds of its plan is its index (places and keys) and this window — never every job
 * (issue 24). `get` answers for a job in the window; a job outside it is read with `load` first.
 * Places come from the plan's index (a listed plan: its list's).
 */
export class JobWindow implements JobIndex<PlannedJob> {
  private readonly held = new Map<string, PlannedJob>();
  /** Jobs let go last, the newest last: a read on the wire when its job's drive ended (a halt) still finds its job. */
  private readonly recent = new Map<string, PlannedJob>();
  private readonly steps: Map<string, StepPlan>;
  private readonly index: JobIndex<unknown>;
  /** How many jobs the plan has (places 0 to places - 1). */
  readonly places: number;

  constructor(
    plan: Pick<Plan, 'steps' | 'jobs'> & { index?: PlanIndex },
    private readonly store: Pick<Store, 'plannedJobs'>,
  ) {
    this.places = plan.jobs.length;
    attachWindow(plan, this);
    this.steps = new Map(plan.steps.map((step) => [step.id, step]));
    this.index = plan.index ? { get: () => undefined, ordinal: (key) => plan.index!.ordinal(key) } : jobIndex(plan);
  }

  get(key: string): PlannedJob | undefined {
    return this.held.get(key) ?? this.recent.get(key);
  }

  ordinal(key: string): number | undefined {
    return this.index.ordinal(key);
  }

  /** How many jobs the window holds. */
  get size(): number {
    return this.held.size;
  }

  /**
   * The jobs of `keys` (of this plan), each as planned, held until `release`d; in the order given.
   * A key the state has no record of is left out (a job outside the plan).
   */
  async load(keys: readonly string[]): Promise<PlannedJob[]> {
    const missing = keys.filter((key) => !this.held.has(key) && this.ordinal(key) !== undefined);
    for (const record of missing.length === 0 ? [] : await this.store.plannedJobs(missing)) this.held.set(record.key, fromRecord(record, this.steps.get(record.step)));
    return keys.flatMap((key) => this.held.get(key) ?? []);
  }

  /** The job's drive ended: it is kept among the last let go (at most RECENT), and read again if it is driven again. */
  release(key: string): void {
    const job = this.held.get(key);
    if (!job) return;
    this.held.delete(key);
    this.recent.delete(key);
    this.recent.set(key, job);
    if (this.recent.size > RECENT) this.recent.delete(this.recent.keys().next().value as string);
  }
}

/**
 * How many jobs let go are kept. Why 4,096: more than the reads a run can have on the wire (its
 * concurrency, at most 1,000) and the downloads behind them, so a late answer finds its job; a
 * few megabytes at most, whatever the plan's size.
 */
const RECENT = 4096;
