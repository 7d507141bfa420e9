import type { RunManifestInput } from '../../run/run-manifest.js';
import { InterruptedError } from '../../errors.js';
import type { CliIo } from '../io.js';
import type { RegisterCommand } from './index.js';
import { addRunFlags, runInputFrom, type RunFlags } from './run-flags.js';

/**
 * Runs a manifest with SIGINT/SIGTERM wired to a graceful stop: the first signal stops submitting
 * and lets requests in flight settle; everything is persisted and the run exits 4. A second
 * signal is left to Node's default (immediate exit): kill -9 loses nothing either.
 */
export async function runWithSignals(
  io: CliIo,
  manifestFile: string,
  input: Omit<RunManifestInput, 'manifestFile' | 'cwd' | 'env' | 'progress' | 'stop'>,
): Promise<void> {
  // Loaded on use, so other commands start without the runner's modules.
  const [{ printProgress }, { StopState }, { RunEvents }, { runManifest }] = await Promise.all([
    import('../../report/progress.js'), import('../../run/run-context.js'), import('../../run/run-events.js'), import('../../run/run-manifest.js'),
  ]);
  const stop = new StopState();
  const progress = new RunEvents();
  printProgress(progress, (line) => io.stderr(line));
  let signalName: string | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    signalName = signal;
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    if (stop.stop('interrupted', `${signal} received`)) progress.emit('run:stopping', { reason: 'interrupted', message: `${signal}: stopping; requests in flight settle first` });
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const output = await runManifest({ ...input, manifestFile, cwd: io.cwd, env: io.env, progress, stop });
    io.stdout(output.summary);
    if (output.error) throw output.error.code === 'INTERRUPTED' && signalName ? new InterruptedError(signalName) : output.error;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/**
 * `reelpipe run MANIFEST`: plan, check the budget, then submit, track and download every job not
 * yet done, exactly once; resumable after any interruption. Progress on stderr, summary on stdout.
 */
export const registerRun: RegisterCommand = (program, io) => {
  addRunFlags(
    program
      .command('run')
      .description('submit, track and download every job of a manifest; safe to interrupt and rerun')
      .argument('<manifest>', 'the manifest YAML file'),
  ).action(async (file: string, flags: RunFlags) => {
    await runWithSignals(io, file, runInputFrom(flags));
  });
};
