import { basename } from 'node:path';
import type { NotifyEvent } from '../../manifest/check/hooks-schema.js';
import { pairText, usedNotes } from '../../report/credits.js';
import { countsText, wordCountsOf, type StateWord } from '../../state/vocabulary.js';
import { formatCredits } from '../../util/format.js';
import { redactSecrets } from '../../util/logger.js';
import type { RunManifestOutput } from '../run-manifest.js';
import { secretsOf } from '../hooks/hook-args.js';

/** How a run ended, named for the `on:` filter of `notify:`; every exit code has one (docs/hooks.md). */
export type RunEnding = Exclude<NotifyEvent, 'always'>;

/**
 * Exit code → ending. 0, 1, 3, 4 and 5 each have their own; anything else a finished run can end
 * with (the credentials refused mid-run: 2, a lost lock: 75, a local fault: 74, a bug: 70) needs
 * a person as much as a failed job does, so it is a `failure`.
 */
export function endingOf(exitCode: number): RunEnding {
  const endings: Record<number, RunEnding> = { 0: 'success', 1: 'failure', 3: 'budget', 4: 'unfinished', 5: 'in_doubt' };
  return endings[exitCode] ?? 'failure';
}

/** The run's summary: what a notification carries beside its `text`, and what `on_finish` gets as REELPIPE_SUMMARY. */
export interface RunSummary {
  name: string;
  manifest: string;
  runId: number | null;
  ending: RunEnding;
  exitCode: number;
  /** Why the run did not exit 0 (the error's message, credentials redacted); null on success. */
  message: string | null;
  jobs: number;
  /** Jobs per state, in the words of docs/report.md. */
  counts: Partial<Record<StateWord, number>>;
  /**
   * As `status --json` totals them: the known figures summed (null when every job's is unknown,
   * never 0 for unknown) and the jobs left out of each; `used` is what the service charged the
   * manifest, every remote job it ever made; `thisRun`, what this run's requests were charged;
   * `apart`, what of `used` went to no job of the plan (see RunCredits in run/execute-plan.ts).
   */
  credits: {
    estimated: number | null; unknownEstimates: number; used: number | null; unknownUsed: number; cap: number | null;
    thisRun: { used: number; unknown: number }; apart: { superseded: number; removed: number; forgotten: number };
  };
  /** The report's index.html; null when it could not be written. */
  report: string | null;
  outputs: string;
  elapsedSeconds: number;
  /** How the on_finish hook ended, when the manifest has one. */
  onFinish?: { ok: boolean; exitCode: number | null; error: string | null };
}

export function buildRunSummary(output: RunManifestOutput, exitCode: number, report: string | null, env: NodeJS.ProcessEnv): RunSummary {
  const { plan, result } = output;
  return {
    name: plan.name,
    manifest: plan.manifestPath,
    runId: output.runId,
    ending: endingOf(exitCode),
    exitCode,
    message: output.error ? redactSecrets(output.error.message, secretsOf(env)) : null,
    jobs: plan.jobs.length,
    counts: wordCountsOf(result.counts),
    credits: {
      estimated: result.credits.estimated,
      unknownEstimates: result.credits.unknownEstimates,
      used: result.credits.used,
      unknownUsed: result.credits.unknownUsed,
      cap: result.credits.cap,
      thisRun: result.credits.thisRun,
      apart: result.credits.apart,
    },
    report,
    outputs: plan.outputsDir,
    elapsedSeconds: Math.round(output.elapsedMs / 100) / 10,
  };
}

/** Slack's `text`: one line saying which manifest, how it ended, the counts, the credits, and where the report is. */
export function summaryText(s: RunSummary): string {
  const cap = s.credits.cap === null ? '' : ` of a cap of ${formatCredits(s.credits.cap)}`;
  const lines = [
    `reelpipe ${s.name} (${basename(s.manifest)}): ${s.ending.replace('_', ' ')} (exit ${s.exitCode}) — ${countsText(s.counts) || 'nothing to do'}`,
    `credits used ${pairText(s.credits.used, s.credits.unknownUsed)}${cap} (${[`estimated ${pairText(s.credits.estimated, s.credits.unknownEstimates)}`, ...usedNotes({ ...s.credits, unknownUsed: s.credits.unknownUsed })].join('; ')})`,
    `report: ${s.report ?? 'not written'}`,
  ];
  if (s.message) lines.push(s.message.split('\n')[0] ?? '');
  if (s.onFinish && !s.onFinish.ok) lines.push(`on_finish hook failed: ${s.onFinish.error ?? `exit ${s.onFinish.exitCode ?? '?'}`}`);
  return lines.join('\n');
}
