import { loadManifest } from '../../manifest/index.js';
import { planManifest } from '../../plan/index.js';
import type { RegisterCommand } from './index.js';

/** `reelpipe validate MANIFEST`: every problem at once, or a one-line OK. Offline. */
export const registerValidate: RegisterCommand = (program, io) => {
  program
    .command('validate')
    .description('check a manifest and its CSV/JSONL files; list every problem as FILE:LINE:COL  path: message')
    .argument('<manifest>', 'the manifest YAML file')
    .action(async (file: string) => {
      const manifest = await loadManifest(file, { env: io.env, cwd: io.cwd });
      const plan = planManifest(manifest);
      for (const warning of plan.warnings) io.stderr(`warning: ${warning}\n`);
      const steps = plural(plan.steps.length, 'step');
      io.stdout(`OK ${file}: ${plan.name}, ${steps}, ${plural(plan.totals.jobs, 'job')}\n`);
    });
};

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
