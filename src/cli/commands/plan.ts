import { UsageError } from '../../errors.js';
import { addStateFlags, statePathOf, type StateFlags } from '../state-flags.js';
import { planFromState } from './target.js';
import type { Plan } from '../../plan/index.js';
import type { CliIo } from '../io.js';
import type { RegisterCommand } from './index.js';
import { addOutputFlags, outcomeJson, withJsonFailure, type OutputFlags } from './output-flags.js';

/**
 * `reelpipe plan MANIFEST [--json | --quiet] [--max-credits N] [--state PATH] [--sandbox | --sandbox-url URL] [--step ID…]`:
 * what would be made and what it would cost, with no network access (`--quiet`: the totals and the
 * budget line only). Each job shows as the state database knows it (in the words of
 * src/state/vocabulary.ts; read-only, no lock). Prints the plan, then refuses (exit 3) when the
 * budget gate would refuse the run. `--step` plans only those steps' jobs, as `run --step` would
 * (run/select-steps.ts), refusing the same selections. Heavy modules (the manifest schemas, the
 * planner, SQLite) load inside the action, so other commands start without them.
 */
interface PlanFlags extends OutputFlags, StateFlags {
  maxCredits?: number;
  step?: string[];
  out?: string;
  verbose?: boolean;
}

export const registerPlan: RegisterCommand = (program, io) => {
  addOutputFlags(
    addStateFlags(
      program
        .command('plan')
        .description('show the jobs a manifest makes and their credits, against the budget (offline)')
        .argument('<manifest>', 'the manifest YAML file')
        .option('--max-credits <n>', 'budget for this plan, overriding budget.max_credits', parseCredits),
    )
      .option('--step <id>', 'only the jobs of this step (repeat for more), as `run --step` would run them', (id: string, ids: string[] = []) => [...ids, id])
      .option('--out <file>', 'also save the plan to FILE (NDJSON), for `reelpipe run MANIFEST --plan FILE` to run exactly it')
      .option('--verbose', 'list every job to create or re-create, however many'),
    'print the plan as JSON',
  ).action(async (file: string, flags: PlanFlags) => {
    const planner = await import('../../plan/index.js');
    // Until the plan is printed, a failure is printed as JSON too; past it, stdout already holds the plan.
    const { plan, known, budget, fingerprint } = await withJsonFailure(io, flags, () => ({ manifest: file }), () => planAndState(file, io, flags));
    const actionOf = (key: string) => planner.actionOf(known.facts.get(key)?.state);
    if (flags.out !== undefined) await savePlan(io, flags.out, planner.planFileLines(plan, fingerprint, actionOf, (key) => known.earlier.get(key)?.key, new Date().toISOString()));
    if (flags.json) {
      // One object, with the budget gate's verdict in it: on a refusal the exit code (3) follows it.
      const refusal = budgetRefusal(() => planner.assertBudget(plan, budget));
      const spent = { credits: budget.spent, apart: budget.apart, held: budget.held };
      const { used, apart, refunded } = known.money.totals;
      const frame = { stateDb: known.dbPath, spent, money: { used, apart, refunded }, ...outcomeJson(refusal) };
      for (const chunk of planner.planJsonChunks(plan, (key) => known.facts.get(key), frame)) io.stdout(chunk);
      if (refusal) throw refusal;
      return;
    } else if (flags.quiet) {
      io.stdout(`Plan ${plan.name} — ${planner.plural(plan.totals.jobs, 'job')} in ${planner.plural(plan.steps.length, 'step')}\n${planner.budgetLine(budget)}\n`);
    } else {
      const actions = { actionOf, earlier: (key: string) => known.earlier.get(key), verbose: flags.verbose };
      io.stdout(planner.renderPlanTable(plan, { statusOf: (key) => known.facts.get(key)?.state, budget, statePath: known.dbPath, actions }));
    }
    if (flags.out !== undefined && !flags.json) io.stderr(`plan saved to ${flags.out}: \`reelpipe run ${file} --plan ${flags.out}\` runs exactly it\n`);
    planner.assertBudget(plan, budget);
  });
};

/** The plan, what the state database knows of its jobs, and the budget gate's view of them. */
async function planAndState(file: string, io: CliIo, flags: PlanFlags) {
  const [{ loadManifest }, planner] = await Promise.all([import('../../manifest/index.js'), import('../../plan/index.js')]);
  const manifest = await loadManifest(file, { env: io.env, cwd: io.cwd });
  const whole = await planFromState(manifest, io, flags, await statePathOf(manifest.file, io, flags));
  const known = await stateOf(whole, io, flags);
  const plan = flags.step ? await selection(whole, flags.step, known.money, io) : whole;
  // The run's own gate, weighing what is still to submit against what is already spent.
  return { plan, known, budget: planner.budgetView(plan, plan.budget.maxCredits, known.money), fingerprint: planner.fingerprintOf(manifest) };
}

/**
 * What this manifest's rows of its state database (found from the manifest, like every command)
 * say of each job, and of its money; a missing database: every job is not submitted. First, the
 * outputs folder's ownership check `run` makes (without claiming it): an outputs folder another
 * (or an emptied) database filled is refused here as there, exit 2, rather than shown as jobs
 * still to pay for. SQLite loads only here.
 */
async function stateOf(plan: Plan, io: CliIo, flags: PlanFlags) {
  const [{ checkOutputs, stateAt }, { readJobFacts }, { scopedJobs }] = await Promise.all([
    import('../../state/index.js'), import('../../report/job-facts.js'), import('../../plan/job-index.js'),
  ]);
  const dbPath = await statePathOf(plan.manifestPath, io, flags);
  const state = stateAt(dbPath);
  checkOutputs(plan.outputsDir, await state.identity(plan.manifestId));
  return {
    dbPath, facts: (await readJobFacts(dbPath, plan)).facts, money: await state.jobMoney(plan.manifestId, scopedJobs(plan)),
    earlier: await state.earlierRequests(plan.manifestId, scopedJobs(plan)),
  };
}

/** The `--step` selection, said on stderr (stdout stays the plan, or its JSON). */
async function selection(plan: Plan, steps: string[], money: { job(key: string): { status: string } | undefined }, io: CliIo): Promise<Plan> {
  const { selectSteps } = await import('../../run/select-steps.js');
  const chosen = selectSteps(plan, steps, (key) => money.job(key)?.status);
  io.stderr(`--step: ${chosen.jobs.length} of the manifest's ${plan.jobs.length} jobs (step ${chosen.steps.map((s) => s.id).join(', ')})\n`);
  return chosen;
}

/** Writes the plan file a line at a time, aside then renamed into place: a reader never sees half a plan. */
async function savePlan(io: CliIo, out: string, lines: Iterable<string>): Promise<void> {
  const [{ writeAtomically }, { resolve }, { fileFault }] = await Promise.all([import('../../download/index.js'), import('node:path'), import('../file-fault.js')]);
  await writeAtomically(resolve(io.cwd, out), async (file) => {
    for (const line of lines) file.write(line);
  }).catch((error: unknown) => {
    throw fileFault(error, 'the plan could not be saved', '--out must name a file in a folder reelpipe can create and write') ?? error;
  });
}

/** The error the budget gate refuses with, or undefined when it lets the plan through. */
function budgetRefusal(gate: () => void): unknown {
  try {
    gate();
    return undefined;
  } catch (error) {
    return error;
  }
}

function parseCredits(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`--max-credits takes a positive number of credits, got "${value}"`);
  return n;
}
