import { addStateFlags, inSandbox, statePathOf, type StateFlags } from '../state-flags.js';
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
      const [{ loadManifest }, { planManifest }, { buildStatusReport, renderStatus }] = await Promise.all([
        import('../../manifest/index.js'), import('../../plan/index.js'), import('../../report/status-report.js'),
      ]);
      const manifest = await loadManifest(file, { env: io.env, cwd: io.cwd });
      const plan = planManifest(manifest, { sandbox: inSandbox(flags) });
      const dbPath = await statePathOf(plan.manifestPath, io, flags);
      const report = buildStatusReport(plan, dbPath);
      io.stdout(flags.json ? `${JSON.stringify(report, null, 2)}\n` : renderStatus(report));
    });
};
