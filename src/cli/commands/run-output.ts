import { buildStatusReport } from '../../report/status-report.js';
import { renderSummary } from '../../report/summary.js';
import { writeRunReport } from '../../report/write-report.js';
import type { RunStarted } from '../../run/run-events.js';
import type { RunManifestOutput } from '../../run/run-manifest.js';
import { afterRun } from '../../run/hooks/after-run.js';
import { EXIT, exitCodeFor } from '../exit-codes.js';
import type { CliIo } from '../io.js';
import { outcomeJson, printJson, type OutputFlags } from './output-flags.js';
import { endOfRunWriter } from './run-progress.js';

/**
 * The end of a run that ran: the summary on stdout, then the report (every run writes it, whatever
 * its outcome) and its path; with `--json`, instead of both, one object: `status --json` of the
 * manifest, the outcome and exit code, and the run's id, log and report. Then the run's error, if
 * any, goes on to stderr and the exit code.
 */
export async function finishRun(io: CliIo, output: RunManifestOutput, started: RunStarted | undefined, flags: OutputFlags, env: NodeJS.ProcessEnv): Promise<void> {
  if (!output.result.endsRun) return leftRun(io, output, started, flags);
  if (!flags.json) io.stdout(renderSummary(output.plan, output.result, output.elapsedMs));
  // Every run that ran ends with its report, whatever its outcome (exit 4 and budget stops too),
  // covering the whole manifest even when `--step` ran part of it. The run's own read of its jobs
  // at its end is passed on, not read a second time on a fresh connection whose cache is cold; its
  // money only when the run's plan is the manifest's (what is apart depends on the plan it is for).
  const money = output.plan === output.manifestPlan ? { money: output.result.money } : {};
  // Headed by this run's row: on a run several hosts shared, the newest member's may be one killed since.
  const runId = output.runId === null ? {} : { runId: output.runId };
  const report = await writeRunReport({ plan: output.manifestPlan, statePath: output.statePath, ...money, ...runId }).catch((error: Error) => error);
  const say = endOfRunWriter(io, flags);
  // Said, stamped, where the run's other end-of-run lines go; the jobs stand as recorded, and the exit code with them.
  if (report instanceof Error) say(`reelpipe: the report could not be written: ${report.message}; the run's jobs are recorded as they stand: fix that, then \`reelpipe report ${output.manifest.file}\` writes it\n`);
  else if (!flags.json) io.stdout(`report: ${report.html}\n`);
  if (flags.json) {
    const run = { id: started?.runId ?? null, log: started?.logFile ?? null, report: report instanceof Error ? null : report.html, elapsedMs: output.elapsedMs };
    printJson(io, { ...(await buildStatusReport(output.plan, output.statePath)), ...outcomeJson(output.error), run });
  }
  // Then on_finish and the notifications, which carry the report's path; neither changes the exit code.
  const exitCode = output.error ? exitCodeFor(output.error) : EXIT.ok;
  await afterRun({ output, exitCode, report: report instanceof Error ? null : report.html, env, say });
  if (output.error) throw output.error;
}

/**
 * A member of a shared run that left while another member stayed (run/members.ts): the one that
 * ends the run writes the report, runs on_finish and sends the notifications, once; this one says
 * what it did and exits 0, unless it stopped itself.
 */
function leftRun(io: CliIo, output: RunManifestOutput, started: RunStarted | undefined, flags: OutputFlags): void {
  const line = `${output.plan.manifestId}: this host's share of the run is over; another member ends the run (its report, on_finish and notifications)`;
  if (flags.json) printJson(io, { ...outcomeJson(output.error), endsRun: false, run: { id: started?.runId ?? null, log: started?.logFile ?? null, report: null, elapsedMs: output.elapsedMs } });
  else io.stdout(`${line}\n`);
  if (output.error) throw output.error;
}
