import { createHash } from 'node:crypto';
import { keysOf } from '../plan/job-index.js';
import type { Plan } from '../plan/types.js';
import { plural } from '../util/format.js';
import type { ResolvedRunOptions } from './run-options.js';

/**
 * What every member of a run several hosts share must run alike (members.ts): the plan's jobs (a
 * digest of their keys in plan order: a key is the job's content, so another manifest or data file
 * gives other keys), the `--step` selection, the credit cap and `--retries`. The first member
 * records them; one that brings others is refused (exit 2) before it sends anything.
 */
interface Terms {
  jobs: string;
  count: number;
  steps: string[];
  maxCredits: number | null;
  retries: number | null;
}

export function runTerms(plan: Plan, options: Pick<ResolvedRunOptions, 'maxCredits' | 'retries'>): string {
  const terms: Terms = {
    jobs: keysDigest(plan),
    count: plan.jobs.length,
    steps: plan.steps.map((step) => step.id),
    maxCredits: options.maxCredits,
    retries: options.retries,
  };
  return JSON.stringify(terms);
}

/**
 * Why a member's terms are not its run's, for the refusal: each difference, and the jobs of this
 * member's plan the run's plan does not have (`unknown`: their labels, as the state has no row for them).
 */
export function termsDifference(mine: string, theirs: string, unknown: readonly string[]): string {
  const a = JSON.parse(mine) as Terms;
  const b = JSON.parse(theirs) as Terms;
  const said: string[] = [];
  if (a.jobs !== b.jobs) {
    const named = unknown.length === 0 ? '' : `; not in the run's plan: ${unknown.slice(0, 10).join(', ')}${unknown.length > 10 ? ` and ${unknown.length - 10} more` : ''}`;
    said.push(`its plan has ${plural(a.count, 'job')}, the run's ${plural(b.count, 'job')}, not the same ones${named}`);
  }
  if (a.steps.join(',') !== b.steps.join(',')) said.push(`its steps are ${a.steps.join(', ')}, the run's ${b.steps.join(', ')} (--step)`);
  if (a.maxCredits !== b.maxCredits) said.push(`its credit cap is ${a.maxCredits ?? 'none'}, the run's ${b.maxCredits ?? 'none'}`);
  if (a.retries !== b.retries) said.push(`its --retries is ${a.retries ?? 'each step\'s'}, the run's ${b.retries ?? 'each step\'s'}`);
  return said.join('; ');
}

/** The hash of the plan's keys joined by line breaks, a key at a time (read from its index when it has one). */
function keysDigest(plan: Plan): string {
  const digest = createHash('sha256');
  let first = true;
  for (const key of keysOf(plan)) {
    digest.update(first ? key : `\n${key}`);
    first = false;
  }
  return digest.digest('hex').slice(0, 16);
}
