import { UsageError } from '../../errors.js';
import { jobsWhere } from '../../plan/job-index.js';
import type { Plan } from '../../plan/types.js';
import type { JobStatus, Store } from '../../state/index.js';
import type { RegisterCommand } from './index.js';
import { addOutputFlags, type OutputFlags } from './output-flags.js';
import { addRunFlags, runInputFrom, type RunFlags } from './run-flags.js';
import { runWithSignals } from './run.js';

/** `--step ID` must name a step of the plan. */
function checkStep(plan: Plan, step: string | undefined): void {
  if (step !== undefined && !plan.steps.some((s) => s.id === step)) {
    throw new UsageError(`--step ${step}: no such step; the manifest's steps are ${plan.steps.map((s) => s.id).join(', ')}`);
  }
}

/** What `retry` plans again: jobs that failed, were rejected, or made only some of their items. */
const RETRIED: readonly JobStatus[] = ['failed', 'rejected', 'partly_failed'];

/**
 * Plans the failed, rejected and partly failed jobs of `plan` (of one step, if given) again;
 * returns how many. A partly failed job keeps its made items: its next attempt asks only for the
 * failed ones (run/submit/items-to-send.ts).
 */
export async function planFailedAgain(store: Store, plan: Plan, step?: string): Promise<number> {
  checkStep(plan, step);
  const again = await store.planAgain(jobsWhere(plan.jobs, (j) => step === undefined || j.step === step).map((j) => j.key), RETRIED);
  return again.length;
}

/**
 * `reelpipe retry MANIFEST [--failed] [--hooks] [--step ID]`: plans failed and rejected jobs
 * again, then runs the manifest, so they are resubmitted (each as a new remote job). `--failed`
 * names the default selection; `--hooks` instead reruns only the failed output hooks (their
 * jobs' files stay; nothing is resubmitted), and with `--failed` does both. Jobs in doubt are not
 * retried here (see run --resubmit-in-doubt).
 */
export const registerRetry: RegisterCommand = (program, io, setExit) => {
  addOutputFlags(
    addRunFlags(
      program
        .command('retry')
        .description('resubmit the failed, rejected and partly failed jobs of a manifest, then run it')
        .argument('<manifest>', 'the manifest YAML file')
        .option('--failed', 'retry failed, rejected and partly failed jobs (the default without --hooks); a partly failed job asks only for its failed items')
        .option('--hooks', 'rerun only the failed output hooks (their files stay; nothing is resubmitted)')
        .option('--step <id>', 'only the jobs of this step'),
    ),
    'print one JSON object at the end (status --json, with the outcome and exit code) instead of the summary',
  ).action(async (file: string, flags: RunFlags & OutputFlags & { failed?: boolean; hooks?: boolean; step?: string }) => {
    const ofStep = flags.step ? ` of step ${flags.step}` : '';
    // Loaded on use, like the runner, so other commands start without SQLite.
    const { retryFailedHooks } = await import('../../run/hooks/retry-hooks.js');
    await runWithSignals(
      io,
      file,
      {
        ...runInputFrom(flags),
        // Said through the run's events, so it takes its place in the progress (and the run's log).
        prepare: async (store, plan, events) => {
          checkStep(plan, flags.step);
          if (flags.hooks) {
            const { jobs, hooks } = await retryFailedHooks(store, plan, flags.step);
            events.emit('run:note', { message: `rerunning ${hooks} failed hook${hooks === 1 ? '' : 's'} of ${jobs} job${jobs === 1 ? '' : 's'}${ofStep}` });
          }
          if (flags.failed || !flags.hooks) {
            const n = await planFailedAgain(store, plan, flags.step);
            events.emit('run:note', { message: `retrying ${n} failed job${n === 1 ? '' : 's'}${ofStep}` });
          }
        },
      },
      flags,
      setExit,
    );
  });
};
