import type { RegisterCommand } from './index.js';
import { addStateFlags, statePathOf, type StateFlags } from '../state-flags.js';
import { planFromState } from './target.js';
import { addOutputFlags, outcomeJson, printJson, withJsonFailure, type OutputFlags } from './output-flags.js';

/**
 * `reelpipe validate MANIFEST [--quiet] [--json]`: every problem at once, or a one-line OK.
 * Offline. `--json`: one object (the manifest's name, steps, jobs and warnings, or its problems
 * with their places) with the outcome and exit code. A step nobody prices under the manifest's
 * budget is valid, but warned of: `plan` and `run` refuse it (plan/unpriced-warnings.ts). The manifest and planner modules (zod
 * schemas, YAML, CSV) load inside the action, so other commands and `--help` start without them.
 */
export const registerValidate: RegisterCommand = (program, io) => {
  addOutputFlags(
    addStateFlags(program
      .command('validate')
      .description('check a manifest and its CSV/JSONL files; list every problem as FILE:LINE:COL  path: message')
      .argument('<manifest>', 'the manifest YAML file')),
    'print one JSON object: the manifest\'s steps and jobs, or every problem with its place',
  ).action(async (file: string, flags: OutputFlags & StateFlags) => {
    await withJsonFailure(io, flags, () => ({ manifest: file }), async () => {
      const [{ loadManifest }, { plural, unpricedWarnings }] = await Promise.all([import('../../manifest/index.js'), import('../../plan/index.js')]);
      const manifest = await loadManifest(file, { env: io.env, cwd: io.cwd });
      // Style ids are checked against the catalogue the state database keeps of the service's (or the sandbox's).
      const plan = await planFromState(manifest, io, flags, await statePathOf(manifest.file, io, flags));
      const warnings = [...plan.warnings, ...unpricedWarnings(plan, manifest)];
      if (flags.json) {
        // Shaped like status --json where they meet: steps listed (each with its job count), counts in totals.
        const steps = plan.steps.map((s) => ({ id: s.id, kind: s.kind, jobs: s.jobs }));
        printJson(io, { manifest: plan.manifestPath, name: plan.name, steps, totals: { jobs: plan.totals.jobs }, warnings, ...outcomeJson(undefined) });
        return;
      }
      if (!flags.quiet) for (const warning of warnings) io.stderr(`warning: ${warning}\n`);
      io.stdout(`OK ${file}: ${plan.name}, ${plural(plan.steps.length, 'step')}, ${plural(plan.totals.jobs, 'job')}\n`);
    });
  });
};
