import { budgetLine, budgetView, unknownNote, type BudgetView } from './budget.js';
import { STATE_WORDS, stateWord } from '../state/vocabulary.js';
import { formatCredits, plural } from '../util/format.js';
import { table } from '../util/table.js';
import { creditChart } from './credit-chart.js';
import { renderActions, type ActionsView } from './plan-actions.js';
import { scopedJobs } from './job-index.js';
import type { CreditTotal, Plan } from './types.js';

/**
 * `reelpipe plan` as people read it: one line per step (jobs, credits low/expected/high, how the
 * jobs stand in the run state), the total against the budget, and the jobs nobody can price.
 * Pure: the caller prints it.
 */
export type StatusOf = (key: string) => string | undefined;

/** Until a run has recorded a job, it is not submitted (the vocabulary's word, src/state/vocabulary.ts). */
export const NEW = stateWord(null);

export interface PlanTableOptions {
  /** How the state database knows each job. @default every job new */
  statusOf?: StatusOf;
  /** The budget gate's verdict, weighed against the state. @default weighed as if nothing were spent */
  budget?: BudgetView;
  /** The state database the statuses come from, shown under the header. @default not shown */
  statePath?: string;
  /** What a run will do to each job (create, re-create, leave alone), said under the table. @default not said */
  actions?: ActionsView;
}

export function renderPlanTable(plan: Plan, options: PlanTableOptions = {}): string {
  const { statusOf, statePath } = options;
  const budget = options.budget ?? budgetView(plan, plan.budget.maxCredits);
  // A PRIORITY column only when some step sets one: every other plan reads as before.
  const prioritised = plan.steps.some((s) => s.priority !== 0);
  const priority = <T>(cell: T): T[] => (prioritised ? [cell] : []);
  const header = ['STEP', 'KIND', 'JOBS', 'LOW', 'EXPECTED', 'HIGH', ...priority('PRIORITY'), 'STATUS'];
  const statuses = statusCounts(plan, statusOf);
  const rows = plan.steps.map((s) => [s.id, s.kind + (s.mode ? ` (${s.mode})` : ''), String(s.jobs), ...creditCells(s), ...priority(String(s.priority)), statusCell(statuses.get(s.id))]);
  const total = ['TOTAL', '', String(plan.totals.jobs), ...creditCells(plan.totals), ...priority(''), ''];
  const lines = [
    `Plan ${plan.name} — ${plural(plan.totals.jobs, 'job')} in ${plural(plan.steps.length, 'step')}`,
    `outputs: ${plan.outputsDir}   concurrency: ${plan.concurrency}`,
    ...(statePath ? [`state: ${statePath}`] : []),
    '',
    ...table([header, ...rows, total], [false, false, true, true, true, true, ...priority(true), false]),
    '',
    ...chartBlock(plan),
    ...(options.actions ? [...renderActions(plan, options.actions), ''] : []),
    budgetLine(budget),
  ];
  const unknown = unknownNote(budget);
  if (unknown) lines.push(`${unknown.slice(2)}: add estimate_credits to those steps to count them`);
  if (plan.warnings.length > 0) lines.push('', 'warnings:', ...plan.warnings.map((w) => `  - ${w}`));
  return `${lines.join('\n')}\n`;
}

function chartBlock(plan: Plan): string[] {
  const chart = creditChart(plan);
  return chart.length === 0 ? [] : [...chart, ''];
}

type Counted = { credits: CreditTotal | null; unknownJobs: number };

/** `?` when every job is of unknown cost; `N+?` when some are (the figure is a floor). */
function creditCells({ credits, unknownJobs }: Counted): string[] {
  if (credits === null) return ['?', '?', '?'];
  const mark = unknownJobs > 0 ? '+?' : '';
  return [credits.low, credits.expected, credits.high].map((n) => formatCredits(n) + mark);
}

/** How many jobs of each step stand in each state, in one pass over the plan's keys (a streamed plan's index: no job made). */
function statusCounts(plan: Plan, statusOf?: StatusOf): Map<string, Map<string, number>> {
  const byStep = new Map(plan.steps.map((step) => [step.id, new Map<string, number>()]));
  for (const { key, step } of scopedJobs(plan)) {
    const counts = byStep.get(step);
    const status = statusOf?.(key) ?? NEW;
    counts?.set(status, (counts.get(status) ?? 0) + 1);
  }
  return byStep;
}

function statusCell(counts: ReadonlyMap<string, number> = new Map()): string {
  // In the vocabulary's order, as every view lists states; a word it lacks goes last.
  const rank = (word: string) => ((STATE_WORDS as readonly string[]).indexOf(word) + STATE_WORDS.length + 1) % (STATE_WORDS.length + 1);
  return [...counts].sort(([a], [b]) => rank(a) - rank(b)).map(([status, n]) => `${n} ${status}`).join(', ');
}
