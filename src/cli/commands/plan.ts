import { UsageError } from '../../errors.js';
import { loadManifest } from '../../manifest/index.js';
import { assertWithinBudget, planManifest, planToJson, renderPlanTable } from '../../plan/index.js';
import type { RegisterCommand } from './index.js';

/**
 * `reelpipe plan MANIFEST [--json] [--max-credits N]`: what would be made and what it would cost,
 * with no network access. Prints the plan, then refuses (exit 3) when the expected total is over
 * the budget. Every job shows as new until the runner's state database records it.
 */
export const registerPlan: RegisterCommand = (program, io) => {
  program
    .command('plan')
    .description('show the jobs a manifest makes and their credits, against the budget (offline)')
    .argument('<manifest>', 'the manifest YAML file')
    .option('--json', 'print the plan as JSON')
    .option('--max-credits <n>', 'budget for this plan, overriding budget.max_credits', parseCredits)
    .action(async (file: string, options: { json?: boolean; maxCredits?: number }) => {
      const manifest = await loadManifest(file, { env: io.env, cwd: io.cwd });
      const plan = planManifest(manifest, { maxCredits: options.maxCredits });
      io.stdout(options.json ? `${JSON.stringify(planToJson(plan), null, 2)}\n` : renderPlanTable(plan));
      assertWithinBudget(plan);
    });
};

function parseCredits(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`--max-credits takes a positive number of credits, got "${value}"`);
  return n;
}
