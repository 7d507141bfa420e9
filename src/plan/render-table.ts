import { unknownNote } from './budget.js';
import { formatCredits, plural } from './totals.js';
import type { CreditTotal, Plan, StepPlan } from './types.js';

/**
 * `reelpipe plan` as people read it: one line per step (jobs, credits low/expected/high, how the
 * jobs stand in the run state), the total against the budget, and the jobs nobody can price.
 * Pure: the caller prints it.
 */
export type StatusOf = (key: string) => string | undefined;

/** Until a run has recorded a job, it is new. */
export const NEW = 'new';

export function renderPlanTable(plan: Plan, statusOf?: StatusOf): string {
  const header = ['STEP', 'KIND', 'JOBS', 'LOW', 'EXPECTED', 'HIGH', 'STATUS'];
  const rows = plan.steps.map((s) => [s.id, s.kind + (s.mode ? ` (${s.mode})` : ''), String(s.jobs), ...creditCells(s), statusCell(plan, s, statusOf)]);
  const total = ['TOTAL', '', String(plan.totals.jobs), ...creditCells(plan.totals), ''];
  const lines = [
    `Plan ${plan.name} — ${plural(plan.totals.jobs, 'job')} in ${plural(plan.steps.length, 'step')}`,
    `outputs: ${plan.outputsDir}   concurrency: ${plan.concurrency}`,
    '',
    ...table([header, ...rows, total], [false, false, true, true, true, true, false]),
    '',
    budgetLine(plan),
  ];
  const unknown = unknownNote(plan);
  if (unknown) lines.push(`${unknown.slice(2)}: add estimate_credits to those steps to count them`);
  if (plan.warnings.length > 0) lines.push('', 'warnings:', ...plan.warnings.map((w) => `  - ${w}`));
  return `${lines.join('\n')}\n`;
}

type Counted = { credits: CreditTotal | null; unknownJobs: number };

/** `?` when every job is of unknown cost; `N+?` when some are (the figure is a floor). */
function creditCells({ credits, unknownJobs }: Counted): string[] {
  if (credits === null) return ['?', '?', '?'];
  const mark = unknownJobs > 0 ? '+?' : '';
  return [credits.low, credits.expected, credits.high].map((n) => formatCredits(n) + mark);
}

function statusCell(plan: Plan, step: StepPlan, statusOf?: StatusOf): string {
  const counts = new Map<string, number>();
  for (const job of plan.jobs) {
    if (job.step !== step.id) continue;
    const status = statusOf?.(job.key) ?? NEW;
    counts.set(status, (counts.get(status) ?? 0) + 1);
  }
  return [...counts].map(([status, n]) => `${n} ${status}`).join(', ');
}

function budgetLine(plan: Plan): string {
  const max = plan.budget.maxCredits;
  const set = max === null ? 'none set' : formatCredits(max);
  if (plan.totals.credits === null) return `budget: ${set} — every job's cost is unknown, so nothing can be compared`;
  const { expected, high } = plan.totals.credits;
  if (max === null) return `budget: none set (expected ${formatCredits(expected)} credits)`;
  if (expected > max) return `budget: ${formatCredits(max)} — OVER by ${formatCredits(expected - max)} (expected ${formatCredits(expected)})`;
  const share = Math.round((expected / max) * 100);
  const risk = high > max ? `; the high estimate ${formatCredits(high)} would exceed it` : '';
  return `budget: ${formatCredits(max)} — expected ${formatCredits(expected)} is within it (${share}%)${risk}`;
}

function table(rows: string[][], rightAligned: boolean[]): string[] {
  const widths = rows[0]?.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length))) ?? [];
  return rows.map((row) =>
    row
      .map((cell, c) => (rightAligned[c] ? cell.padStart(widths[c] ?? 0) : cell.padEnd(widths[c] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
}
