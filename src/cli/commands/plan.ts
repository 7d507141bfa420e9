import { UsageError } from '../../errors.js';
import type { Plan } from '../../plan/index.js';
import type { CliIo } from '../io.js';
import type { RegisterCommand } from './index.js';

/**
 * `reelpipe plan MANIFEST [--json] [--max-credits N] [--state PATH | --sandbox]`: what would be
 * made and what it would cost, with no network access. Each job shows as the state database
 * knows it (new, done, changed, in flight, failed, in doubt; read-only, no lock). Prints the plan,
 * then refuses (exit 3) when the expected total is over the budget. Heavy modules (the manifest
 * schemas, the planner, SQLite) load inside the action, so other commands start without them.
 */
interface PlanFlags {
  json?: boolean;
  maxCredits?: number;
  state?: string;
  sandbox?: boolean;
}

export const registerPlan: RegisterCommand = (program, io) => {
  program
    .command('plan')
    .description('show the jobs a manifest makes and their credits, against the budget (offline)')
    .argument('<manifest>', 'the manifest YAML file')
    .option('--json', 'print the plan as JSON')
    .option('--max-credits <n>', 'budget for this plan, overriding budget.max_credits', parseCredits)
    .option('--state <path>', 'state database to show job status from (default state/reelpipe.db)')
    .option('--sandbox', "show status from the embedded sandbox runs' state (state/sandbox.db)")
    .action(async (file: string, flags: PlanFlags) => {
      // In `run`, --sandbox picks the service and --state where its state goes; here both only
      // pick which database to read, so together they contradict each other.
      if (flags.state !== undefined && flags.sandbox) {
        throw new UsageError("--state and --sandbox both choose the state database to read: give one (--sandbox reads the embedded sandbox runs' state)");
      }
      const [{ loadManifest }, planner] = await Promise.all([import('../../manifest/index.js'), import('../../plan/index.js')]);
      const manifest = await loadManifest(file, { env: io.env, cwd: io.cwd });
      const plan = planner.planManifest(manifest, { maxCredits: flags.maxCredits });
      const statuses = await statusesOf(plan, io, flags);
      const statusOf = (key: string) => statuses.get(key);
      if (flags.json) {
        for (const chunk of planner.planJsonChunks(plan, statusOf)) io.stdout(chunk);
      } else io.stdout(planner.renderPlanTable(plan, statusOf));
      planner.assertWithinBudget(plan);
    });
};

/** Each job's state in this manifest's rows (a missing database: every job is new). SQLite loads only here. */
async function statusesOf(plan: Plan, io: CliIo, flags: PlanFlags): Promise<Map<string, string>> {
  const { readJobStatuses, resolveStatePath } = await import('../../state/index.js');
  const dbPath = resolveStatePath(io.cwd, flags.state, flags.sandbox);
  return readJobStatuses(dbPath, plan.jobs.map((j) => ({ key: j.key, step: j.step, outputName: j.outputName })), plan.manifestPath);
}

function parseCredits(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`--max-credits takes a positive number of credits, got "${value}"`);
  return n;
}
