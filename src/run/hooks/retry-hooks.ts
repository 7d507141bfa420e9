import type { Plan } from '../../plan/types.js';
import { HookRuns, type StateStore } from '../../state/index.js';

/**
 * `reelpipe retry --hooks`: each `hook_failed` job of `plan` (of one step, if given) goes back to
 * `downloaded` (`partly_failed` when some of its items failed) and its failed output hooks are
 * marked `retried`, in one transaction; the run
 * that follows runs those hooks, and only those, again. Its files are not fetched again and
 * nothing is resubmitted. Returns how many jobs and hooks.
 */
export function retryFailedHooks(store: StateStore, plan: Plan, step?: string): { jobs: number; hooks: number } {
  const keys = plan.jobs.filter((j) => step === undefined || j.step === step).map((j) => j.key);
  const rows = store.jobs(keys).filter((row) => row.status === 'hook_failed');
  const runs = new HookRuns(store);
  return store.atomically(() => {
    const hooks = runs.retryFailed(rows.map((r) => r.key));
    for (const row of rows) store.transition(row.key, store.madeStatus(row.key), { failedReason: null }, 'job:hooks-retry', { previous: row.failedReason });
    return { jobs: rows.length, hooks };
  });
}
