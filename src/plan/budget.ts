import { BudgetExceededError } from '../errors.js';
import { formatCredits, plural } from '../util/format.js';
import { ZERO, addCredits, roundTotal } from './totals.js';
import type { CreditTotal, Plan } from './types.js';

/**
 * The budget gate: one verdict, used by `plan` (which prints it and exits 3) and by `run` (which
 * refuses to start), so the two can never disagree. It weighs what the run will still submit
 * against what the cap has left after what the state database says is already spent or held.
 */

/** What the state database holds of one job's money. */
export interface JobMoney {
  status: string;
  creditsUsed: number | null;
  creditsReserved: number;
  creditsPrior: number;
  /** The plan's expected cost when it was recorded (null: unknown). */
  creditsEstimated: number | null;
}

/**
 * How one job's money counts against the cap — the rule the gate and the run's ledger share.
 * Earlier, failed attempts' costs always count. A finished job (done, downloaded, hook_failed, failed) counts
 * at its reported cost, or at its reservation when none was reported: assuming a job was free is
 * the one mistake that can pass the cap unseen. A rejected job cost nothing. A job that exists, or
 * may, at the service and is not finished (submitting, in doubt, submitted, running) holds its
 * reservation (its estimate's high end: what the run's ledger holds so the cap can never be
 * passed); for the gate's verdict, which weighs expected figures, it counts at its expected cost
 * (`likely`), or its reservation when nobody priced it. A job still to submit (planned, or unknown
 * to the database) counts nothing yet.
 */
export function countedMoney(job: JobMoney | undefined): { spent: number; held: number; likely: number; toSubmit: boolean } {
  if (!job) return { spent: 0, held: 0, likely: 0, toSubmit: true };
  const prior = job.creditsPrior;
  switch (job.status) {
    case 'done':
    case 'downloaded':
    case 'hook_failed':
    case 'failed':
      return { spent: prior + (job.creditsUsed ?? job.creditsReserved), held: 0, likely: 0, toSubmit: false };
    case 'rejected':
      return { spent: prior + (job.creditsUsed ?? 0), held: 0, likely: 0, toSubmit: false };
    case 'planned':
      return { spent: prior, held: 0, likely: 0, toSubmit: true };
    default:
      return { spent: prior, held: job.creditsReserved, likely: job.creditsEstimated ?? job.creditsReserved, toSubmit: false };
  }
}

export type BudgetVerdict = 'no-cap' | 'nothing-to-submit' | 'within' | 'over' | 'unpriced';

export interface BudgetView {
  cap: number | null;
  /** Spent by finished jobs and earlier attempts, as the run's ledger counts it. */
  spent: number;
  /** Jobs at the service whose cost is not final, at their expected cost (the run's ledger holds their high ends). */
  held: number;
  /** The jobs this run will still submit: their estimates summed, and the steps of those nobody prices. */
  toSubmit: { jobs: number; credits: CreditTotal; unknown: { step: string; kind: string; jobs: number }[] };
  verdict: BudgetVerdict;
}

/**
 * The verdict for `plan` under `cap` (null: none), given what the state database holds of each
 * job (`moneyOf`; undefined: never recorded). Policy: the expected figure of what is still to
 * submit is compared (low would let most runs overspend, high would refuse plans that are fine on
 * average; at run time each job reserves its high end, so the cap itself is never passed on the
 * estimates). A job nobody prices cannot be weighed at all, so under a cap it refuses the run
 * until its step says `estimate_credits`. Nothing left to submit is never over budget: a finished
 * manifest whose past spend exceeds a lowered cap has nothing more to spend.
 */
export function budgetView(plan: Plan, cap: number | null, moneyOf: (key: string) => JobMoney | undefined = () => undefined): BudgetView {
  let spent = 0;
  let held = 0;
  let jobs = 0;
  let credits = ZERO;
  const unknown = new Map<string, { step: string; kind: string; jobs: number }>();
  for (const job of plan.jobs) {
    const money = countedMoney(moneyOf(job.key));
    spent += money.spent;
    held += money.likely;
    if (!money.toSubmit) continue;
    jobs++;
    if (job.credits) credits = addCredits(credits, job.credits);
    else {
      const step = unknown.get(job.step) ?? { step: job.step, kind: job.kind, jobs: 0 };
      step.jobs++;
      unknown.set(job.step, step);
    }
  }
  const view = { cap, spent: round(spent), held: round(held), toSubmit: { jobs, credits: roundTotal(credits), unknown: [...unknown.values()] } };
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

/** `, beside 30 already spent and 12 held by jobs at the service`, or nothing when both are 0. */
function alreadyText(view: BudgetView): string {
  const parts = [view.spent > 0 ? `${formatCredits(view.spent)} already spent` : '', view.held > 0 ? `${formatCredits(view.held)} expected of jobs at the service` : ''].filter(Boolean);
  return parts.length ? `, beside ${parts.join(' and ')}` : '';
}

const round = (n: number) => Math.round(n * 100) / 100;
