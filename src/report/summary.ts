import type { Plan } from '../plan/types.js';
import type { RunResult } from '../run/execute-plan.js';
import type { JobStatus, StateStore } from '../state/index.js';

const ORDER: JobStatus[] = ['downloaded', 'done', 'running', 'submitted', 'submitting', 'in_doubt', 'planned', 'failed', 'rejected'];
const LABEL: Partial<Record<JobStatus, string>> = {
  downloaded: 'done',
  done: 'finished, not downloaded',
  in_doubt: 'in doubt',
  planned: 'not submitted',
};
/** Failures listed in full up to this many; a long list is cut so the summary stays readable. */
const LIST_MAX = 20;

export const formatCredits = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(1));

/**
 * The final summary on stdout: jobs per state, credits estimated against used, where the files
 * are, and every job that needs a person's attention, with the service's reason.
 */
export function renderSummary(plan: Plan, result: RunResult, store: StateStore, elapsedMs: number): string {
  const counts = ORDER.filter((s) => result.counts[s]).map((s) => `${result.counts[s]} ${LABEL[s] ?? s}`);
  const lines = [
    `${plan.name}: ${plan.jobs.length} job${plan.jobs.length === 1 ? '' : 's'} — ${counts.join(', ') || 'nothing to do'}`,
    `credits: estimated ${formatCredits(result.credits.estimated)}, used ${formatCredits(result.credits.used)}` +
      (result.credits.cap === null ? '' : ` (cap ${formatCredits(result.credits.cap)})`),
    `outputs: ${plan.outputsDir}`,
    `time: ${(elapsedMs / 1000).toFixed(1)} s`,
  ];
  const rows = store.jobs(plan.jobs.map((j) => j.key));
  const failed = rows.filter((r) => r.status === 'failed' || r.status === 'rejected');
  section(lines, 'failed', failed.map((r) => `${r.key}  ${r.status}: ${r.failedReason ?? 'no reason given'}`));
  section(lines, 'not started (a job they need failed)', result.blocked);
  section(lines, 'in doubt (may exist remotely; see docs/exactly-once.md, or rerun with --resubmit-in-doubt)', result.heldInDoubt);
  section(lines, 'finished but not downloaded (the next run tries again)', result.undownloaded);
  if (result.stopMessage) lines.push(`stopped early: ${result.stopMessage}`);
  return `${lines.join('\n')}\n`;
}

function section(lines: string[], title: string, items: readonly string[]): void {
  if (items.length === 0) return;
  lines.push(`${title}:`);
  for (const item of items.slice(0, LIST_MAX)) lines.push(`  ${item}`);
  if (items.length > LIST_MAX) lines.push(`  … and ${items.length - LIST_MAX} more (reelpipe status shows all)`);
}
