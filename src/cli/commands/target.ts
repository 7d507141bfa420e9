import { UsageError } from '../../errors.js';
import type { Plan, PlannedJob } from '../../plan/index.js';
import type { CliIo } from '../io.js';
import { inSandbox, statePathOf, type StateFlags } from '../state-flags.js';

/**
 * The manifest's plan and its state database, found as every command finds them (the manifest's
 * project, --state, --sandbox). Heavy modules load here, on use.
 */
export async function manifestTarget(io: CliIo, file: string, flags: StateFlags): Promise<{ plan: Plan; statePath: string }> {
  const [{ loadManifest }, { planManifest }] = await Promise.all([import('../../manifest/index.js'), import('../../plan/index.js')]);
  const plan = planManifest(await loadManifest(file, { env: io.env, cwd: io.cwd }), { sandbox: inSandbox(flags) });
  return { plan, statePath: await statePathOf(plan.manifestPath, io, flags) };
}

/** The planned job named by its key or its label (labels are unique within a manifest). */
export function jobNamed(plan: Plan, name: string): PlannedJob {
  const job = plan.jobs.find((j) => j.key === name) ?? plan.jobs.find((j) => j.label === name);
  if (job) return job;
  const near = plan.jobs.filter((j) => j.label.includes(name) || j.key.startsWith(name)).slice(0, 5).map((j) => `${j.label} (${j.key})`);
  throw new UsageError(`no job of ${plan.name} is called "${name}": give its key or its label${near.length ? `; did you mean ${near.join(', ')}?` : ''}`);
}
