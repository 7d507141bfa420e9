import { resolve } from 'node:path';
import { UsageError } from '../../errors.js';
import { jobIndex, type JobIndex } from '../../plan/job-index.js';
import type { Plan, PlannedJob } from '../../plan/types.js';
import type { RunEvents, RunStarted } from '../../run/run-events.js';
import type { RunManifestInput } from '../../run/run-manifest.js';
import type { Store } from '../../state/index.js';
import type { CliIo } from '../io.js';
import type { RegisterCommand } from './index.js';
import { addOutputFlags, type OutputFlags, withJsonFailure } from './output-flags.js';
import { addRunFlags, addStepFlag, runInputFrom, type RunFlags } from './run-flags.js';
import { thisHost } from '../../util/host-name.js';

/** What `run` and `retry` hand to runWithSignals: the run's options, and a hook that may announce through the run's events. */
export interface RunCommandInput extends Omit<RunManifestInput, 'manifestFile' | 'cwd' | 'env' | 'progress' | 'stop' | 'prepare' | 'openLog'> {
  /** Runs once the lock is held and before any job moves (see RunManifestInput.prepare). */
  prepare?: (store: Store, plan: Plan, events: RunEvents) => Promise<void>;
}

/**
 * Runs a manifest with SIGINT/SIGTERM wired to a graceful stop: the first signal stops submitting
 * and lets requests in flight settle; everything is persisted and the run exits 4. A second
 * signal is left to Node's default (immediate exit): kill -9 loses nothing either. Progress goes
 * to stderr (progress/mode.ts decides how), the run's log to state/logs/, and the summary — or,
 * with `--json`, one JSON object — to stdout.
 */
export async function runWithSignals(io: CliIo, manifestFile: string, input: RunCommandInput, output: OutputFlags, setExit: (code: number) => void): Promise<void> {
  // Loaded on use, so other commands start without the runner's modules.
  const [{ startRunProgress, sayRunError }, { StopState }, { RunEvents }, { runManifest }, { openRunLog }, { VERSION }, { finishRun }] = await Promise.all([
    import('./run-progress.js'), import('../../run/run-context.js'), import('../../run/run-events.js'), import('../../run/run-manifest.js'),
    import('../../report/run-log.js'), import('../../util/version.js'), import('./run-output.js'),
  ]);
  const stop = new StopState();
  const events = new RunEvents();
  // The jobs' labels, for the run's log: the plan's own index (plan/job-index.ts), once prepared.
  let labels: JobIndex<PlannedJob> | undefined;
  let started: RunStarted | undefined;
  events.on('run:started', (e) => (started = e));
  const progress = startRunProgress(io, events, output);
  const onSignal = (signal: NodeJS.Signals) => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    if (stop.stop('interrupted', `${signal} received`)) {
      events.emit('run:stopping', { reason: 'interrupted', cause: signal, message: 'no new jobs are sent; requests in flight settle first' });
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    let planned: Plan | undefined;
    const prepare: RunManifestInput['prepare'] = async (store, plan) => {
      labels = jobIndex(plan);
      await input.prepare?.(store, plan, events);
      planned = plan;
    };
    // Progress counts from the jobs as the drive begins (recorded, recovered): the run reads them once.
    events.on('run:jobs-page', ({ jobs }) => planned && progress.found(planned, jobs));
    events.on('run:jobs', ({ joined }) => planned && progress.begin(planned, [], { joined }));
    const openLog: RunManifestInput['openLog'] = (run) =>
      openRunLog({ files: run.files, runId: run.id, host: thisHost(io.env), env: io.env, events, labelOf: (key) => labels?.get(key)?.label, version: VERSION });
    // A plain run joins a live run of its manifest on a shared state; `retry` (which resets jobs first) does not.
    const run = () => runManifest({ ...input, manifestFile, cwd: io.cwd, env: io.env, progress: events, stop, prepare, openLog, join: input.prepare === undefined });
    const fallback = () => ({ manifest: started?.manifest ?? manifestFile, run: started ? { id: started.runId, log: started.logFile } : null });
    const result = await withJsonFailure(io, output, fallback, run).finally(() => progress.close());
    await finishRun(io, result, started, output, io.env);
  } catch (error) {
    // Said here, not by the CLI's entry: without a terminal, stamped like every line before it.
    sayRunError(io, output, setExit, started !== undefined)(error);
  } finally {
    progress.close();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/**
 * `reelpipe run MANIFEST`: plan, check the budget, then submit, track and download every job not
 * yet done, exactly once; resumable after any interruption. Progress on stderr, summary on stdout.
 */
export const registerRun: RegisterCommand = (program, io, setExit) => {
  addOutputFlags(
    addStepFlag(
      addRunFlags(
        program
          .command('run')
          .description('submit, track and download every job of a manifest; safe to interrupt and rerun')
          .argument('<manifest>', 'the manifest YAML file')
          .option('--plan <file>', 'run exactly the plan saved by `reelpipe plan MANIFEST --out FILE`; refused (exit 2, nothing sent) if the manifest no longer yields it'),
      ),
    ),
    'print one JSON object at the end (status --json, with the outcome and exit code) instead of the summary',
  ).action(async (file: string, flags: RunFlags & OutputFlags & { step?: string[]; plan?: string }) => {
    if (flags.plan !== undefined && flags.step) throw new UsageError('--plan runs a saved plan as it was saved, its steps included: give --step to `reelpipe plan … --out FILE` instead');
    await runWithSignals(io, file, { ...runInputFrom(flags), steps: flags.step, ...(flags.plan === undefined ? {} : { planFile: resolve(io.cwd, flags.plan) }) }, flags, setExit);
  });
};
