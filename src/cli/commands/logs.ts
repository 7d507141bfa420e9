import { existsSync } from 'node:fs';
import { UsageError } from '../../errors.js';
import type { RegisterCommand } from './index.js';
import { addStateFlags, locateManifestState, type StateFlags } from '../state-flags.js';
import { wholePositive } from './run-flags.js';
import { thisHost } from '../../util/host-name.js';

interface LogsFlags extends StateFlags {
  run?: number;
  job?: string;
  level: string;
  json?: boolean;
}

/**
 * Lines shown unless `--level` says otherwise. Why info: the run's events (a job submitted,
 * failed, in doubt; a stop) read as a story; each request is a debug line, there when asked for.
 */
const DEFAULT_LEVEL = 'info';

/**
 * `reelpipe logs MANIFEST [--run ID] [--job KEY|LABEL] [--level L] [--json]`: a run's log
 * (state/logs/RUN-ID.ndjson; default the newest run, or this host's member of it) read back, one line per entry, in pino-pretty's
 * words — or, with `--json`, its NDJSON lines as they are. Streamed: a log of any size is read a
 * chunk at a time.
 */
export const registerLogs: RegisterCommand = (program, io) => {
  addStateFlags(
    program
      .command('logs')
      .description("print a run's log (state/logs/) readably, filtered by job and level")
      .argument('<manifest>', 'the manifest YAML file')
      .option('--run <id>', 'the run (default: the newest run of the manifest)', wholePositive('--run'))
      .option('--job <key-or-label>', "only the lines about this job (its key or its label)")
      .option('--level <level>', 'the lowest level shown: trace, debug, info, warn, error, fatal', DEFAULT_LEVEL)
      .option('--json', 'print the matching lines as they are in the log (NDJSON)'),
  ).action(async (file: string, flags: LogsFlags) => {
    const [{ readRun }, { runLogPath }, { readLogLines, prettyLogLine, LEVEL_VALUES }, { stateFiles }] = await Promise.all([
      import('../../report/run-info.js'), import('../../report/run-log.js'), import('../../report/read-log.js'), import('../../state/locate.js'),
    ]);
    const minLevel = LEVEL_VALUES[flags.level.trim().toLowerCase()];
    if (minLevel === undefined) throw new UsageError(`--level ${flags.level}: not a level; use one of ${Object.keys(LEVEL_VALUES).join(', ')}`);
    const { manifestId, manifestPath: manifest, statePath: dbPath } = await locateManifestState(file, io, flags);
    // A run several hosts shared has a log on each: this host's member's, unless --run says which.
    const run = await readRun(dbPath, manifestId, flags.run ?? (await thisHostsMember(dbPath, manifestId, thisHost(io.env))));
    if (!run) throw new UsageError(`${file} has no runs in ${dbPath} yet: there is no log to read`);
    const files = stateFiles(manifest, dbPath);
    // Named for the run's host on a shared state; a log written before logs were named so has no host in its name.
    const log = [runLogPath(files, run.id, run.host), runLogPath({ ...files, shared: false }, run.id, run.host)].find((path) => existsSync(path));
    if (log === undefined) {
      const here = run.host === thisHost(io.env) ? '' : `; it ran on ${run.host}, which keeps its own runs' logs`;
      throw new UsageError(`run ${run.id} of ${file} has no log: ${runLogPath(files, run.id, run.host)} does not exist (runs before logs were kept, or the file was removed${here})`);
    }
    const pretty = flags.json ? (line: string) => line : prettyLogLine();
    const { shown, skipped } = await readLogLines(log, { job: flags.job, minLevel }, (line) => io.stdout(flags.json ? `${line}\n` : pretty(line)));
    if (skipped > 0) io.stderr(`${skipped} line${skipped === 1 ? '' : 's'} of ${log} skipped: not JSON, or longer than 1 MiB\n`);
    if (shown === 0) io.stderr(`no line of run ${run.id}${flags.job ? ` about job ${flags.job}` : ''} at level ${flags.level} or above (${log})\n`);
  });
};

/** This host's newest member of the manifest's newest run (a run several hosts shared); undefined when it has none here. */
async function thisHostsMember(dbPath: string, manifest: string, host: string): Promise<number | undefined> {
  const { stateAt } = await import('../../state/index.js');
  const members = await stateAt(dbPath).members(manifest).catch(() => []);
  return members.length > 1 ? members.filter((m) => m.host === host).at(-1)?.runId : undefined;
}
