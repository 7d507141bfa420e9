import type { StateWord } from '../state/vocabulary.js';
import { formatCredits, plural } from '../util/format.js';
import { oneLine } from '../util/one-line.js';
import { addCredits, ZERO } from './totals.js';
import type { CreditTotal, Plan, PlannedJob } from './types.js';

/**
 * What a run of a plan will do to each job, as `terraform plan` says it: `create` a job never sent,
 * `recreate` a job whose row changed (a new key in the place of an earlier job: the earlier one's
 * spend and files are kept, and the new one is paid for), or leave it alone (`keep`: sent,
 * finished or failed already — a run follows it, never sends it again).
 */
export type PlanAction = 'create' | 'recreate' | 'keep';

export const SYMBOL: Record<PlanAction, string> = { create: '+', recreate: '~', keep: '=' };

/** A job's action from its state word (src/state/vocabulary.ts); a job the state never recorded is created. */
export function actionOf(word: StateWord | undefined): PlanAction {
  if (word === undefined || word === 'not submitted') return 'create';
  return word === 'changed' ? 'recreate' : 'keep';
}

/** An earlier version of a job: its key and the request it was sent with. */
export interface EarlierJob {
  key: string;
  request: Record<string, unknown>;
}

export interface ActionsView {
  actionOf: (key: string) => PlanAction;
  /** The earlier version a re-created job replaces, when the state knows it. */
  earlier: (key: string) => EarlierJob | undefined;
  /** List every job to create or re-create, however many. @default listed only when few */
  verbose?: boolean;
}

/** Jobs listed one by one without --verbose at most; more are summed per step. */
const FEW = 20;

/**
 * The changes a run of `plan` makes, as people read them: the counts, a line per step, the jobs to
 * create or re-create (with what changed) when few or asked for, and what this run will spend beside
 * the manifest's total. Pure.
 */
export function renderActions(plan: Plan, view: ActionsView): string[] {
  const counts = { create: 0, recreate: 0, keep: 0 };
  const byStep = new Map<string, typeof counts>();
  let spend: CreditTotal = ZERO;
  let unpriced = 0;
  // Without --verbose, only the first few are kept to be listed (a streamed plan of 1,000,000 new
  // jobs would otherwise hold every one): the rest are counted.
  const changing: PlannedJob[] = [];
  let changes = 0;
  for (const job of plan.jobs) {
    const action = view.actionOf(job.key);
    counts[action]++;
    const step = byStep.get(job.step) ?? { create: 0, recreate: 0, keep: 0 };
    step[action]++;
    byStep.set(job.step, step);
    if (action === 'keep') continue;
    if (view.verbose || changes <= FEW) changing.push(job);
    changes++;
    if (job.credits) spend = addCredits(spend, job.credits);
    else unpriced++;
  }
  const lines = [`changes: + ${counts.create} to create, ~ ${counts.recreate} to re-create (changed rows), = ${counts.keep} left alone`];
  for (const step of plan.steps) {
    const c = byStep.get(step.id) ?? { create: 0, recreate: 0, keep: 0 };
    lines.push(`  ${step.id.padEnd(20)} + ${String(c.create).padStart(4)}  ~ ${String(c.recreate).padStart(4)}  = ${String(c.keep).padStart(4)}`);
  }
  if (changes > 0 && (view.verbose || changes <= FEW)) for (const job of changing) lines.push(jobLine(job, view));
  else if (changes > 0) lines.push(`  (${plural(changes, 'job')} to create or re-create: --verbose lists them)`);
  lines.push(spendLine(plan, spend, changes, unpriced));
  return lines;
}

/** `~ short-B  shorts:def… (was shorts:abc…)  script: "old" → "new"`. */
function jobLine(job: PlannedJob, view: ActionsView): string {
  const action = view.actionOf(job.key);
  const earlier = action === 'recreate' ? view.earlier(job.key) : undefined;
  const was = earlier ? ` (was ${earlier.key})` : '';
  const changed = earlier ? changedFields(earlier.request, job.request) : '';
  return `  ${SYMBOL[action]} ${job.label}  ${job.key}${was}${changed ? `  ${changed}` : ''}`;
}

/**
 * `script: "Hiking boots." → "Hiking boots, half price."`: the request's fields that differ, each
 * shortened. A field still holding a reference placeholder is left out (the earlier request was sent
 * with it resolved, so they always differ).
 */
export function changedFields(before: Record<string, unknown>, after: Record<string, unknown>): string {
  const show = (value: unknown) => oneLine(value === undefined ? '(none)' : JSON.stringify(value), 60);
  const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((field) => {
    if (field === 'webhook_url') return false;
    const a = JSON.stringify(before[field]);
    const b = JSON.stringify(after[field]);
    return a !== b && !(b ?? '').includes('{{');
  });
  return fields.map((field) => `${field}: ${show(before[field])} → ${show(after[field])}`).join('; ');
}

/** `this run: 15 credits expected (low 10, high 20) for 3 jobs; the manifest's jobs: 60 expected`. */
function spendLine(plan: Plan, spend: CreditTotal, jobs: number, unpriced: number): string {
  const unknown = unpriced > 0 ? ` + unknown (${plural(unpriced, 'job')})` : '';
  const total = plan.totals.credits ? `${formatCredits(plan.totals.credits.expected)}${plan.totals.unknownJobs ? ' + unknown' : ''}` : 'unknown';
  if (jobs === 0) return `this run: nothing to send; the manifest's jobs: ${total} credits expected in all`;
  return `this run: ${formatCredits(spend.expected)}${unknown} credits expected (low ${formatCredits(spend.low)}, high ${formatCredits(spend.high)}) for ${plural(jobs, 'job')}; the manifest's jobs: ${total} expected in all`;
}
