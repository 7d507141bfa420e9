import { UsageError } from '../../errors.js';
import type { Manifest } from '../../manifest/index.js';
import { findJob, jobsWhere } from '../../plan/job-index.js';
import type { Plan, PlannedJob } from '../../plan/index.js';
import type { CliIo } from '../io.js';
import { inSandbox, statePathOf, type StateFlags } from '../state-flags.js';

/**
 * The manifest's plan and its state database, found as every command finds them (the manifest's
 * project, --state, --sandbox). Heavy modules load here, on use.
 */
export async function manifestTarget(io: CliIo, file: string, flags: StateFlags): Promise<{ plan: Plan; statePath: string }> {
  const { loadManifest } = await import('../../manifest/index.js');
  const manifest = await loadManifest(file, { env: io.env, cwd: io.cwd });
  const statePath = await statePathOf(manifest.file, io, flags);
  return { plan: await planFromState(manifest, io, flags, statePath), statePath };
}

/**
 * The manifest's plan as every command makes it, once the state's rows of its path are its
 * identity's (run/adopt-identity.ts): with what the state database says of the
 * service's catalogue and the jobs already sent (run/plan-with-state.ts). With --sandbox-url, the
 * standalone sandbox is the service whose catalogue counts; with --sandbox, the embedded one's own.
 */
export async function planFromState(manifest: Manifest, io: CliIo, flags: StateFlags & { maxCredits?: number }, statePath: string): Promise<Plan> {
  const [{ planWithState }, { adoptIdentity }] = await Promise.all([import('../../run/plan-with-state.js'), import('../../run/adopt-identity.js')]);
  // Rows an older reelpipe keyed by the manifest's path become its identity's, before any is read.
  await adoptIdentity(statePath, { id: manifest.identity, path: manifest.file }, (line) => io.stderr(`${line}\n`));
  const maxCredits = flags.maxCredits === undefined ? {} : { maxCredits: flags.maxCredits };
  const service = flags.sandboxUrl ?? (io.env.REELPIPE_BASE_URL?.trim() || undefined);
  return planWithState(manifest, { sandbox: inSandbox(flags), embedded: flags.sandbox === true, statePath, service, ...maxCredits });
}

/** The planned job named by its key or its label (labels are unique within a manifest). */
export function jobNamed(plan: Plan, name: string): PlannedJob {
  const job = findJob(plan.jobs, (j) => j.key === name) ?? findJob(plan.jobs, (j) => j.label === name);
  if (job) return job;
  const near = jobsWhere(plan.jobs, (j) => j.label.includes(name) || j.key.startsWith(name)).slice(0, 5).map((j) => `${j.label} (${j.key})`);
  throw new UsageError(`no job of ${plan.name} is called "${name}": give its key or its label${near.length ? `; did you mean ${near.join(', ')}?` : ''}`);
}
