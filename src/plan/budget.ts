import { BudgetExceededError } from '../errors.js';
import { formatCredits, plural } from '../util/format.js';
import { ZERO, addCredits, roundTotal } from './totals.js';
import type { CreditTotal, Plan } from './types.js';

/**
 * The budget gate: one verdict, used by `plan` (which prints it and exits 3) and by `run` (which
 * refuses to start), so the two can never disagree. It weighs what the run will still submit
 * against what the cap has left after what the state database says is already spent or held.
 */

/** What the state database holds of one job, for the gate: where it stands and what it may cost. */
export interface JobMoney {
  status: string;
  creditsReserved: number;
  /** The plan's expected cost when it was recorded (null: unknown). */
  creditsEstimated: number | null;
}

/**
 * What the state database holds of the manifest's money (state/sqlite/money.ts): every charge it ever
 * had, its edited rows' earlier versions and forgotten jobs included — they were paid.
 */
export interface RecordedMoney {
  /** Each recorded job of the plan. */
  job(key: string): JobMoney | undefined;
  /** What every settled charge counts against the cap (a cost not reported at its reservation). */
  spent: number;
  /** Reservations of charges still open of jobs outside the plan (an edited row's job still rendering). */
  heldOutside: number;
  /** The part of `spent` that is not the plan's own jobs': shown apart. */
  apart: { superseded: number; removed: number; forgotten: number };
}

export const NOTHING_RECORDED: RecordedMoney = { job: () => undefined, spent: 0, heldOutside: 0, apart: { superseded: 0, removed: 0, forgotten: 0 } };

/**
 * How one recorded job weighs in the gate beside what is spent. A job that exists, or may, at the
 * service and is not finished (submitting, in doubt, submitted, running) is held at its expected
 * cost (`likely`; its reservation when nobody priced it): the verdict weighs expected figures, while
 * the run's ledger holds its high end so the cap can never be passed. A job still to submit
 * (planned, or unknown to the database) counts nothing yet. What finished jobs cost is in `spent`.
 */
export function jobStance(job: JobMoney | undefined): { likely: number; toSubmit: boolean } {
  if (!job || job.status === 'planned') return { likely: 0, toSubmit: true };
  const inFlight = job.status === 'submitting' || job.status === 'in_doubt' || job.status === 'submitted' || job.status === 'running';
  return { likely: inFlight ? (job.creditsEstimated ?? job.creditsReserved) : 0, toSubmit: false };
}

export type BudgetVerdict = 'no-cap' | 'nothing-to-submit' | 'within' | 'over' | 'unpriced';

export interface BudgetView {
  cap: number | null;
  /** Spent by every remote job the manifest ever made, as the run's ledger counts it. */
  spent: number;
  /** Of `spent`, what went to edited rows' earlier versions, rows no longer in the manifest, and forgotten jobs. */
  apart: RecordedMoney['apart'];
  /** Jobs at the service whose cost is not final, at their expected cost (the run's ledger holds their high ends). */
  held: number;
  /** The jobs this run will still submit: their estimates summed, and the steps of those nobody prices. */
  toSubmit: { jobs: number; credits: CreditTotal; unknown: { step: string; kind: string; jobs: number }[] };
  verdict: BudgetVerdict;
}

/**
 * The verdict for `plan` under `cap` (null: none), given what the state database holds (`recorded`).
 * Policy: the expected figure of what is still to submit is compared (low would let most runs
 * overspend, high would refuse plans that are fine on average; at run time each job reserves its
 * high end, so the cap itself is never passed on the estimates). A job nobody prices cannot be
 * weighed at all, so under a cap it refuses the run until its step says `estimate_credits`.
 * Nothing left to submit is never over budget: a finished manifest whose past spend exceeds a
 * lowered cap has nothing more to spend.
 */
export function budgetView(plan: Plan, cap: number | null, recorded: RecordedMoney = NOTHING_RECORDED): BudgetView {
  let held = recorded.heldOutside;
  let jobs = 0;
  let credits = ZERO;
  const unknown = new Map<string, { step: string; kind: string; jobs: number }>();
  for (const job of plan.jobs) {
    const stance = jobStance(recorded.job(job.key));
    held += stance.likely;
    if (!stance.toSubmit) continue;
    jobs++;
    if (job.credits) credits = addCredits(credits, job.credits);
    else {
      const step = unknown.get(job.step) ?? { step: job.step, kind: job.kind, jobs: 0 };
      step.jobs++;
      unknown.set(job.step, step);
    }
  }
  const view = { cap, spent: round(recorded.spent), apart: recorded.apart, held: round(held), toSubmit: { jobs, credits: roundTotal(credits), unknown: [...unknown.values()] } };
  return { ...view, verdict: verdictOf(view) };
}

function verdictOf(view: Omit<BudgetView, 'verdict'>): BudgetVerdict {
  if (view.cap === null) return 'no-cap';
  if (view.toSubmit.jobs === 0) return 'nothing-to-submit';
  if (view.spent + view.held + view.toSubmit.credits.expected > view.cap + 1e-9) return 'over';
  return view.toSubmit.unknown.length > 0 ? 'unpriced' : 'within';
}

/** Throws BudgetExceededError (exit 3) unless the verdict lets the run start; the message has every figure. */
export function assertBudget(plan: Plan, view: BudgetView): void {
  if (view.verdict !== 'over' && view.verdict !== 'unpriced') return;
  const cap = formatCredits(view.cap ?? 0);
  const { credits, jobs } = view.toSubmit;
  const over = view.spent + view.held + credits.expected - (view.cap ?? 0);
  const parts: string[] = [];
  if (view.verdict === 'over') {
    parts.push(
      `plan ${plan.name} expects ${formatCredits(credits.expected)} credits for the ${plural(jobs, 'job')} still to submit ` +
        `(low ${formatCredits(credits.low)}, high ${formatCredits(credits.high)})${alreadyText(view)}, over the budget of ${cap} ` +
        `by ${formatCredits(round(over))}${unknownNote(view)}`,
    );
  } else {
    parts.push(`a credit cap of ${cap} is set, but nobody prices ${unpricedText(view)}, so the cap could not be kept`);
  }
  parts.push(
    view.verdict === 'over'
      ? 'Nothing was submitted; raise budget.max_credits or --max-credits, or plan fewer jobs.'
      : 'Nothing was submitted; give each of those steps estimate_credits: { low, expected, high } in the manifest, or run without a cap.',
  );
  throw new BudgetExceededError(parts.join('. '));
}

/** The budget line of `plan`, from the same verdict. */
export function budgetLine(view: BudgetView): string {
  const { credits } = view.toSubmit;
  const already = view.spent + view.held;
  const total = round(already + credits.expected);
  switch (view.verdict) {
    case 'no-cap':
      return `budget: none set (expected ${formatCredits(credits.expected)} credits to submit${alreadyText(view)})`;
    case 'nothing-to-submit':
      return `budget: ${formatCredits(view.cap ?? 0)} — nothing left to submit${alreadyText(view)}`;
    case 'over':
      return `budget: ${formatCredits(view.cap ?? 0)} — OVER by ${formatCredits(round(total - (view.cap ?? 0)))} (expected ${formatCredits(credits.expected)} to submit${alreadyText(view)})`;
    case 'unpriced':
      return `budget: ${formatCredits(view.cap ?? 0)} — REFUSED: nobody prices ${unpricedText(view)}, so the cap cannot be kept`;
    default: {
      const cap = view.cap ?? 0;
      const share = Math.round((total / cap) * 100);
      const risk = already + credits.high > cap + 1e-9 ? `; the high estimate ${formatCredits(round(already + credits.high))} would exceed it` : '';
      const head = already > 0 ? `expected ${formatCredits(credits.expected)} to submit${alreadyText(view)}, ${formatCredits(total)} in all,` : `expected ${formatCredits(credits.expected)}`;
      return `budget: ${formatCredits(cap)} — ${head} is within it (${share}%)${risk}`;
    }
  }
}

/** `; 11 jobs of unknown cost not counted (product ×1, clones ×10)`, or nothing. */
export function unknownNote(view: BudgetView): string {
  if (view.toSubmit.unknown.length === 0) return '';
  const n = view.toSubmit.unknown.reduce((sum, s) => sum + s.jobs, 0);
  return `; ${plural(n, 'job')} of unknown cost not counted (${view.toSubmit.unknown.map((s) => `${s.step} ×${s.jobs}`).join(', ')})`;
}

function unpricedText(view: BudgetView): string {
  return `the jobs still to submit of ${view.toSubmit.unknown.map((s) => `${s.step} (${s.kind}, ${plural(s.jobs, 'job')})`).join(', ')}`;
}

/**
 * `, beside 30 already spent (5 on earlier versions of changed rows) and 12 held by jobs at the
 * service`, or nothing when both are 0.
 */
function alreadyText(view: BudgetView): string {
  const parts = [view.spent > 0 ? `${formatCredits(view.spent)} already spent${apartText(view.apart)}` : '', view.held > 0 ? `${formatCredits(view.held)} expected of jobs at the service` : ''].filter(Boolean);
  return parts.length ? `, beside ${parts.join(' and ')}` : '';
}

/** `5 on earlier versions of changed rows`, `10 on forgotten jobs`: spend that is no job of the plan's, each said apart. */
export function apartParts(apart: RecordedMoney['apart']): string[] {
  return [
    apart.superseded > 0 ? `${formatCredits(apart.superseded)} on earlier versions of changed rows` : '',
    apart.removed > 0 ? `${formatCredits(apart.removed)} on jobs no longer in the manifest` : '',
    apart.forgotten > 0 ? `${formatCredits(apart.forgotten)} on forgotten jobs` : '',
  ].filter(Boolean);
}

/** ` (5 on earlier versions of changed rows, 10 on forgotten jobs)`, or nothing. */
function apartText(apart: RecordedMoney['apart']): string {
  const said = apartParts(apart);
  return said.length ? ` (${said.join(', ')})` : '';
}

const round = (n: number) => Math.round(n * 100) / 100;
