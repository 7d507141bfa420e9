import type { SandboxCore } from '../core.js';
import type { Job } from '../store.js';
import type { Phase, Plan } from './lifecycle.js';

/** The common shape of a job's life: a first state, work phases, then done, failed or rejected. */
export interface WorkSpec {
  initial: { status: string; seconds: number };
  /**
   * A queue state (in_queue): shown for `dispatchSeconds` after the first state even with a free
   * slot, as a job is handed to the render farm, and for as long as it then waits for a slot.
   * @default none: a job waiting for a slot keeps its first status
   */
  queueStatus?: string;
  /** @default 1 */
  dispatchSeconds?: number;
  /** Work phases; each needs a render slot unless `slot: false`. */
  work: { status: string; seconds: number; slot?: boolean; leave?: Phase['leave'] }[];
  /** The success state, or a function deciding the end state once the work is done. */
  done: string | ((job: Job) => string);
  /** Sets the outputs. */
  onDone: (job: Job, at: number) => void;
  /** The kind has a rejected state (video jobs, avatars). @default false */
  rejectable?: boolean;
  /** Why failed work is refunded: only where the spec says so (lipsync). @default false */
  refundOnFailure?: boolean;
  /** The end of the plan waits for a further operation (product image, template preview). @default false */
  rest?: boolean;
  /** Progress shown at the rest: the share of the whole walk done by then. @default 50 */
  restProgress?: number;
}

export const FAULT_FAILED_REASON = 'Generation failed: the renderer reported an error (sandbox fault jobFailure)';
export const FAULT_REJECTED_REASON = 'Rejected: the input did not pass content review (sandbox fault jobRejection)';

/** credits_used is 0 at creation and filled in when processing starts, as the live service does. */
export const startBilling = (job: Job) => {
  job.creditsUsed = job.charged;
};

/**
 * The plan of a job, with the fault draws made at creation: a rejected job stops after its first
 * state and is refunded (it never used credits); a failed one fails at the end of its work.
 */
export function workPlan(core: SandboxCore, spec: WorkSpec): Plan {
  const initial: Phase = { status: spec.initial.status, ms: core.ms(spec.initial.seconds) };
  if (spec.rejectable && core.decide('jobRejection')) {
    return { phases: [initial], end: { status: 'rejected', enter: (job) => reject(core, job) } };
  }
  const failing = core.decide('jobFailure');
  const work: Phase[] = spec.work.map((w, i) => ({
    status: w.status,
    ms: core.ms(w.seconds),
    slot: w.slot ?? true,
    enter: i === 0 ? startBilling : undefined,
    leave: failing ? undefined : w.leave, // a failing job produces nothing
  }));
  const end: Plan['end'] = failing
    ? { status: 'failed', enter: (job) => fail(core, job, FAULT_FAILED_REASON, spec.refundOnFailure ?? false) }
    : { status: spec.done, enter: spec.onDone, rest: spec.rest ?? false };
  const dispatch: Phase[] = spec.queueStatus ? [{ status: spec.queueStatus, ms: core.ms(spec.dispatchSeconds ?? 1) }] : [];
  return { phases: [initial, ...dispatch, ...work], queueStatus: spec.queueStatus, restProgress: spec.restProgress, end };
}

export function fail(core: SandboxCore, job: Job, reason: string, refund: boolean): void {
  job.fields.failed_reason = reason;
  if (!refund) return;
  core.ledger.refund(job, job.charged);
  job.creditsUsed = 0;
}

function reject(core: SandboxCore, job: Job): void {
  job.fields.failed_reason = FAULT_REJECTED_REASON;
  core.ledger.refund(job, job.charged);
  job.creditsUsed = 0;
}

/**
 * In `fail` mode, a job (or a further step) the balance cannot cover waits in its first state,
 * then fails unpaid.
 */
export function shortfallPlan(plan: Plan): Plan {
  const first = plan.phases[0]!;
  return {
    phases: [{ status: first.status, ms: first.ms }],
    end: {
      status: 'failed',
      enter: (job) => {
        job.fields.failed_reason = 'Insufficient credits';
      },
    },
  };
}
