import type { RegisterCommand } from './index.js';
import { addStateFlags, type StateFlags } from '../state-flags.js';
import { manifestTarget } from './target.js';

/**
 * `reelpipe doubt MANIFEST [--json]`: every job held in doubt — may exist at the service, may
 * not — with the attempt's time window, a fingerprint and the body of what was asked (what to
 * look for in the service's own records), and the ways to settle it. Read-only, no lock.
 */
export const registerDoubt: RegisterCommand = (program, io) => {
  addStateFlags(
    program
      .command('doubt')
      .description('list the jobs in doubt (they may exist at the service) and how to settle each')
      .argument('<manifest>', 'the manifest YAML file')
      .option('--json', 'print the list as JSON'),
  ).action(async (file: string, flags: StateFlags & { json?: boolean }) => {
    const { plan, statePath } = await manifestTarget(io, file, flags);
    const { buildDoubtReport, renderDoubtReport } = await import('../../report/doubt-report.js');
    const entries = await buildDoubtReport(plan, statePath, file);
    io.stdout(flags.json ? `${JSON.stringify({ manifest: plan.manifestPath, state: statePath, jobs: entries }, null, 2)}\n` : renderDoubtReport(entries, file));
  });
};
