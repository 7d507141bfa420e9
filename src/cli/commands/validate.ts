import type { RegisterCommand } from './index.js';

/**
 * `reelpipe validate MANIFEST`: every problem at once, or a one-line OK. Offline. The manifest
 * and planner modules (zod schemas, YAML, CSV) load inside the action, so other commands and
 * `--help` start without them.
 */
export const registerValidate: RegisterCommand = (program, io) => {
  program
    .command('validate')
    .description('check a manifest and its CSV/JSONL files; list every problem as FILE:LINE:COL  path: message')
    .argument('<manifest>', 'the manifest YAML file')
    .action(async (file: string) => {
      const [{ loadManifest }, { planManifest, plural }] = await Promise.all([import('../../manifest/index.js'), import('../../plan/index.js')]);
      const manifest = await loadManifest(file, { env: io.env, cwd: io.cwd });
      const plan = planManifest(manifest);
      for (const warning of plan.warnings) io.stderr(`warning: ${warning}\n`);
      io.stdout(`OK ${file}: ${plan.name}, ${plural(plan.steps.length, 'step')}, ${plural(plan.totals.jobs, 'job')}\n`);
    });
};
