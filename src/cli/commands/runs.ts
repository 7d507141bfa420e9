import type { PastRun } from '../../report/run-history.js';
import { exitCodeForOutcome } from '../exit-codes.js';
import type { RegisterCommand } from './index.js';
import { printJson } from './output-flags.js';
import { addStateFlags, locateManifestState, type StateFlags } from '../state-flags.js';
import { wholePositive } from './run-flags.js';

/** Runs listed unless `--limit` says otherwise. Why 20: a month of nightly runs fits a screen. */
const DEFAULT_LIMIT = 20;

/**
 * `reelpipe runs MANIFEST [--json] [--limit N] [--all]`: the manifest's past runs, newest first —
 * start, end (or running / died), outcome, exit code, jobs per state at the end, credits the run
 * counted. Refused starts (the lock held, credentials missing, invalid input…) only with `--all`,
 * with their outcome, exit code and why. Read-only, no lock: it works while a run is going.
 */
export const registerRuns: RegisterCommand = (program, io) => {
  addStateFlags(
    program
      .command('runs')
      .description("list a manifest's past runs: start, end, outcome, exit code, jobs, credits")
      .argument('<manifest>', 'the manifest YAML file')
      .option('--json', 'print the runs as JSON')
      .option('--limit <n>', 'how many of the newest runs', wholePositive('--limit'), DEFAULT_LIMIT)
      .option('--all', 'also the refused starts (another run held the lock, credentials missing, invalid input…)'),
  ).action(async (file: string, flags: StateFlags & { json?: boolean; limit: number; all?: boolean }) => {
    const { manifestId, manifestPath: manifest, statePath: dbPath } = await locateManifestState(file, io, flags);
    const [{ readRunHistory }, { runLogPath }, { renderRuns }, { stateFiles }] = await Promise.all([
      import('../../report/run-history.js'), import('../../report/run-log.js'), import('../../report/render-runs.js'), import('../../state/locate.js'),
    ]);
    const files = stateFiles(manifest, dbPath);
    const { runs, total, refusedHidden } = await readRunHistory(dbPath, manifestId, flags.limit, flags.all === true);
    const listed = runs.map((run: PastRun) => ({ ...run, exitCode: exitCodeForOutcome(run.outcome), log: runLogPath(files, run.id, run.host) }));
    if (flags.json) printJson(io, { manifest, stateDb: dbPath, total, refusedHidden, runs: listed });
    else io.stdout(renderRuns(manifest, dbPath, listed, total, refusedHidden));
  });
};
