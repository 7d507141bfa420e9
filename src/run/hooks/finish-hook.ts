import { dirname } from 'node:path';
import type { Manifest } from '../../manifest/types.js';
import type { HookRunRow, Store } from '../../state/index.js';
import { STATE_WORDS } from '../../state/vocabulary.js';
import type { RunSummary } from '../notify/run-summary.js';
import { hookEnv, renderArgs, secretsOf, type HookValues } from './hook-args.js';
import { runCommand } from './run-command.js';

/**
 * Runs the manifest's `on_finish` hook once, at the end of a run (after its report is written,
 * so the hook may read or send it), recorded before and after like every hook. Its placeholders
 * read the run (`{{ run.outcome }}`, `{{ run.report }}`, …) and its totals (`{{ totals.done }}`,
 * `{{ totals.credits_used }}`, …); REELPIPE_SUMMARY holds the whole summary as JSON. Returns its
 * record, or null when the manifest has no on_finish.
 */
export async function runFinishHook(
  manifest: Pick<Manifest, 'file' | 'name' | 'hooks'>,
  store: Store,
  summary: RunSummary,
  env: NodeJS.ProcessEnv,
): Promise<HookRunRow | null> {
  const command = manifest.hooks.onFinish;
  if (!command) return null;
  const values = finishValues(manifest, summary);
  const { argv, shown } = renderArgs(command.argv, values, env);
  const id = await store.hookBegin('on_finish', null, shown);
  const result = await runCommand(argv, {
    cwd: dirname(manifest.file),
    env: hookEnv(env, 'on_finish', values, { REELPIPE_SUMMARY: JSON.stringify(summary) }),
    timeoutMs: command.timeoutMs,
    secrets: secretsOf(env),
  });
  return store.hookFinish(id, result);
}

/**
 * `run.outputs` is the run's folder (OUTPUTS.sandbox with --sandbox), as the summary says. The
 * credits are the summary's known figures: null (an empty value) when every job's is unknown, never
 * 0; REELPIPE_SUMMARY carries the count of jobs left out beside them.
 */
function finishValues(manifest: Pick<Manifest, 'file' | 'name'>, s: RunSummary): HookValues {
  const words = Object.fromEntries(STATE_WORDS.map((w) => [w.replace(' ', '_'), s.counts[w] ?? 0]));
  return {
    run: { id: s.runId, manifest: manifest.file, name: manifest.name, outputs: s.outputs, outcome: s.ending, exit_code: s.exitCode, report: s.report ?? '' },
    totals: { jobs: s.jobs, credits_used: s.credits.used, credits_estimated: s.credits.estimated, ...words },
  };
}
