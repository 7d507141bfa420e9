import { UsageError } from '../../errors.js';
import type { Plan } from '../../plan/types.js';
import type { StateStore } from '../../state/index.js';
import type { RegisterCommand } from './index.js';
import { addRunFlags, runInputFrom, type RunFlags } from './run-flags.js';
import { runWithSignals } from './run.js';

/** Plans the failed and rejected jobs of `plan` (of one step, if given) again; returns how many. */
export function planFailedAgain(store: StateStore, plan: Plan, step?: string): number {
  if (step !== undefined && !plan.steps.some((s) => s.id === step)) {
    throw new UsageError(`--step ${step}: no such step; the manifest's steps are ${plan.steps.map((s) => s.id).join(', ')}`);
  }
  const rows = store.jobs(plan.jobs.filter((j) => step === undefined || j.step === step).map((j) => j.key));
  const again = rows.filter((row) => row.status === 'failed' || row.status === 'rejected');
  store.atomically(() => {
    for (const row of again) store.planAgain(row.key);
  });
  return again.length;
}

/**
 * `reelpipe retry MANIFEST [--failed] [--step ID]`: plans failed and rejected jobs again, then
 * runs the manifest, so they are resubmitted (each as a new remote job). `--failed` names the
 * default selection; jobs in doubt are not retried here (see run --resubmit-in-doubt).
 */
export const registerRetry: RegisterCommand = (program, io) => {
  addRunFlags(
    program
      .command('retry')
      .description('resubmit the failed (and rejected) jobs of a manifest, then run it')
      .argument('<manifest>', 'the manifest YAML file')
      .option('--failed', 'retry failed and rejected jobs (the default)')
      .option('--step <id>', 'only the jobs of this step'),
  ).action(async (file: string, flags: RunFlags & { failed?: boolean; step?: string }) => {
    await runWithSignals(io, file, {
      ...runInputFrom(flags),
      prepare: (store, plan) => {
        const n = planFailedAgain(store, plan, flags.step);
        io.stderr(`retrying ${n} failed job${n === 1 ? '' : 's'}${flags.step ? ` of step ${flags.step}` : ''}\n`);
      },
    });
  });
};
