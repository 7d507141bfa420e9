import { existsSync } from 'node:fs';
import { UsageError } from '../../errors.js';
import { loadManifest } from '../../manifest/index.js';
import { assertWithinBudget, planManifest, planToJson, renderPlanTable, type Plan } from '../../plan/index.js';
import { SANDBOX_STATE_PATH } from '../../run/run-manifest.js';
import { readJobStatuses, resolveStatePath } from '../../state/index.js';
import type { RegisterCommand } from './index.js';

/**
 * `reelpipe plan MANIFEST [--json] [--max-credits N] [--state PATH | --sandbox]`: what would be
 * made and what it would cost, with no network access. Each job shows as the state database
 * knows it (new, done, changed, in flight, failed, in doubt; read-only, no lock). Prints the plan,
 * then refuses (exit 3) when the expected total is over the budget.
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
      const manifest = await loadManifest(file, { env: io.env, cwd: io.cwd });
      const plan = planManifest(manifest, { maxCredits: flags.maxCredits });
      const statuses = statusesOf(plan, resolveStatePath(io.cwd, flags.state ?? (flags.sandbox ? SANDBOX_STATE_PATH : undefined)));
      const statusOf = (key: string) => statuses.get(key);
      io.stdout(flags.json ? `${JSON.stringify(planToJson(plan, statusOf), null, 2)}\n` : renderPlanTable(plan, statusOf));
      assertWithinBudget(plan);
    });
};

/**
 * A missing database means every job is new. Checked here too: readJobStatuses throws when the
 * database's folder does not exist yet (better-sqlite3 reports that without SQLITE_CANTOPEN).
 */
const statusesOf = (plan: Plan, dbPath: string) =>
  existsSync(dbPath)
    ? readJobStatuses(dbPath, plan.jobs.map((j) => ({ key: j.key, step: j.step, outputName: j.outputName })))
    : new Map<string, string>();

function parseCredits(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`--max-credits takes a positive number of credits, got "${value}"`);
  return n;
}
