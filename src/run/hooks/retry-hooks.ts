import { jobsWhere } from '../../plan/job-index.js';
import type { Plan } from '../../plan/types.js';
import type { Store } from '../../state/index.js';

/**
 * `reelpipe retry --hooks`: each `hook_failed` job of `plan` (of one step, if given) goes back to
 * `downloaded` (`partly_failed` when some of its items failed) and its failed output hooks are
 * marked `retried`, in one transaction; the run
 * that follows runs those hooks, and only those, again. Its files are not fetched again and
 * nothing is resubmitted. Returns how many jobs and hooks.
 */
export function retryFailedHooks(store: Store, plan: Plan, step?: string): Promise<{ jobs: number; hooks: number }> {
  return store.retryFailedHooks(jobsWhere(plan.jobs, (j) => step === undefined || j.step === step).map((j) => j.key));
}
