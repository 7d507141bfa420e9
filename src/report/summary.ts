import type { Plan } from '../plan/types.js';
import type { RunResult } from '../run/execute-plan.js';
import { formatCredits } from '../util/format.js';
import { oneLine } from '../util/one-line.js';
import { creditsText, overrunText, pairText, usedNotes } from './credits.js';
import { countsText, wordCountsOf } from '../state/vocabulary.js';

/** Failures listed in full up to this many; a long list is cut so the summary stays readable. */
const LIST_MAX = 20;
/** A stop's message may name several jobs (a budget overrun's culprits): longer than a reason, still bounded. */
const STOP_MESSAGE_MAX = 1000;

/**
 * The final summary on stdout: jobs per state (in the words of src/state/vocabulary.ts), credits
 * estimated against used (unknown said as unknown, never 0), where the files are, and every job
 * that needs a person's attention, by label and key, with the service's reason.
 */
export function renderSummary(plan: Plan, result: RunResult, elapsedMs: number): string {
  const rows = result.noted;
  const named = (key: string) => `${result.labels.get(key) ?? key} (${key})`;
  const lines = [
    `${plan.name}: ${plan.jobs.length} job${plan.jobs.length === 1 ? '' : 's'} — ${countsText(wordCountsOf(result.counts)) || 'nothing to do'}`,
    creditsLine(plan, result),
    `outputs: ${plan.outputsDir}`,
    `time: ${(elapsedMs / 1000).toFixed(1)} s`,
  ];
  // The service's reasons on one line each (an HTML error page stripped to its words): see util/one-line.ts.
  const reasons = (status: 'failed' | 'rejected') =>
    rows.filter((r) => r.status === status).map((r) => `${named(r.key)}  ${r.failedReason ? oneLine(r.failedReason) : 'no reason given'}`);
  section(lines, 'failed', reasons('failed'));
  const partly = rows.filter((r) => r.status === 'partly_failed').map((r) => `${named(r.key)}  ${itemsText(result.failedItems.get(r.key) ?? [])}`);
  section(lines, 'partly failed (the made items are on disk; reelpipe retry asks only for the failed ones)', partly);
  section(lines, 'rejected by the service (fix the input the reason names)', reasons('rejected'));
  const overruns = result.overHigh.map(overrunText);
  section(lines, 'cost more than the high estimate (check the estimate or the input)', overruns);
  const hookFailed = rows.filter((r) => r.status === 'hook_failed');
  section(lines, 'output hook failed (the files stay; fix the cause, then reelpipe retry --hooks)', hookFailed.map((r) => `${named(r.key)}  ${r.failedReason ?? 'no reason recorded'}`));
  section(lines, 'not started (a job they need failed)', result.blocked.map(named));
  section(lines, 'in doubt (may exist remotely: reelpipe doubt shows why, reelpipe resolve settles one; see docs/exactly-once.md)', result.heldInDoubt.map(named));
  section(lines, 'not submitted, waiting on a job in doubt (they start once it is resolved: reelpipe doubt, then reelpipe resolve)', result.standing.waitingOnDoubt.map(({ key, on }) => `${named(key)}  waits on ${on.map(named).join(', ')}`));
  section(lines, 'finished but not downloaded (the next run tries again)', result.undownloaded.map(named));
  const refused = new Set(result.standing.refused);
  section(lines, 'finished, files refused (fix the reason, then run again: nothing is paid again)', rows.filter((r) => refused.has(r.key)).map((r) => `${named(r.key)}  ${oneLine(r.failedReason ?? '')}`));
  if (result.stopMessage) lines.push(`stopped early: ${oneLine(result.stopMessage, STOP_MESSAGE_MAX)}`);
  return `${lines.join('\n')}\n`;
}

/**
 * `credits: estimated 300, used 694 (this run 14; 5 on earlier versions of changed rows) (cap 1,500)`.
 * `used` is what the service charged the manifest, every remote job it ever made; what this run's
 * own requests were charged, and spend on no job of the plan, are said beside it. The cap counts a
 * cost the service did not report at the job's reservation, so when that differs both are said.
 */
function creditsLine(plan: Plan, result: RunResult): string {
  const estimated = { known: plan.totals.credits?.expected ?? 0, unknownJobs: plan.totals.unknownJobs, jobs: plan.totals.jobs };
  const { cap, spent, used, unknownUsed } = result.credits;
  const counted = cap !== null && (Math.abs(spent - (used ?? 0)) > 0.005 || unknownUsed > 0)
    ? `, ${formatCredits(spent)} counted against it (a cost not reported counts at its high estimate)` : '';
  const notes = usedNotes(result.credits).join('; ');
  return `credits: estimated ${creditsText(estimated)}, used ${pairText(used, unknownUsed)}${notes ? ` (${notes})` : ''}` + (cap === null ? '' : `; cap ${formatCredits(cap)}${counted}`);
}

/** `red-tile: the ad does not fit within 5 MB; blue: …`: failed items with their reasons, on one line. */
function itemsText(items: readonly { item: string; failedReason: string | null }[]): string {
  // A reason's closing full stop goes: the next item follows after a semicolon.
  return items.map((i) => `${i.item}: ${i.failedReason ? oneLine(i.failedReason).replace(/\.$/, '') : 'no reason given'}`).join('; ');
}

function section(lines: string[], title: string, items: readonly string[]): void {
  if (items.length === 0) return;
  lines.push(`${title}:`);
  for (const item of items.slice(0, LIST_MAX)) lines.push(`  ${item}`);
  if (items.length > LIST_MAX) lines.push(`  … and ${items.length - LIST_MAX} more (reelpipe status shows all)`);
}
