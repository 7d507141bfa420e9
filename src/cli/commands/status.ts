import { addStateFlags, type StateFlags } from '../state-flags.js';
import { manifestTarget } from './target.js';
import type { RegisterCommand } from './index.js';

/**
 * `reelpipe status MANIFEST [--json]`: per step and state, credits estimated versus used, and per
 * job its key, kind, status, remote id, credits, files and failed reason. Read-only: it takes no
 * lock and works while a run is going.
 */
export const registerStatus: RegisterCommand = (program, io) => {
  addStateFlags(
    program
      .command('status')
      .description('jobs per step and state, credits estimated versus used, outputs and failures')
      .argument('<manifest>', 'the manifest YAML file')
      .option('--json', 'print the report as JSON'),
  )
    .action(async (file: string, flags: StateFlags & { json?: boolean }) => {
      // Loaded on use, so other commands start without these modules.
      const { buildStatusReport, renderStatus } = await import('../../report/status-report.js');
      const { plan, statePath: dbPath } = await manifestTarget(io, file, flags);
      const report = await buildStatusReport(plan, dbPath);
      io.stdout(flags.json ? `${JSON.stringify(report, null, 2)}\n` : renderStatus(report));
    });
};
