import { openStore, type Store } from '../../state/index.js';
import type { Clock } from '../../util/clock.js';
import { buildRunSummary } from '../notify/run-summary.js';
import { sendNotifications } from '../notify/send-notifications.js';
import type { RunManifestOutput } from '../run-manifest.js';
import { runFinishHook } from './finish-hook.js';
import { hookFailureText } from './output-hooks.js';

export interface AfterRunInput {
  output: RunManifestOutput;
  /** The code the run exits with (decided before, and never changed here). */
  exitCode: number;
  /** The report's index.html, or null when it could not be written. */
  report: string | null;
  env: NodeJS.ProcessEnv;
  /** Where what happened is said (the CLI: stderr). */
  say: (line: string) => void;
  /** Waits between notification attempts. @default systemClock */
  clock?: Clock;
}

/**
 * The end of a run, after its summary and report: the `on_finish` hook, then the notifications
 * (which carry how on_finish ended). Neither can change the exit code, and nothing here throws:
 * a hook that fails or a webhook that cannot be reached is said, and recorded.
 */
export async function afterRun(input: AfterRunInput): Promise<void> {
  const { output, env, say } = input;
  const { manifest } = output;
  if (!manifest.hooks.onFinish && manifest.notify.length === 0) return;
  const summary = buildRunSummary(output, input.exitCode, input.report, env);
  let store: Store | undefined;
  try {
    store = (await openStore(output.statePath)).useManifest(output.plan.manifestId).forRun(output.runId);
    const finished = await runFinishHook(manifest, store, summary, env).catch((error: Error) => {
      say(`reelpipe: the on_finish hook could not be run or recorded: ${error.message}\n`);
      return null;
    });
    if (finished) {
      summary.onFinish = { ok: finished.state === 'ok', exitCode: finished.exitCode, error: finished.error };
      say(finished.state === 'ok' ? `on_finish hook: ok (${finished.durationMs ?? 0} ms)\n` : `reelpipe: the on_finish hook failed: ${hookFailureText(finished)} (the exit code is unchanged)\n`);
    }
    // The run's --max-wait bounds its notifications too (send-notifications.ts says why).
    const notified = await sendNotifications(manifest.notify, summary, env, {
      say,
      ...(input.clock ? { clock: input.clock } : {}),
      ...(output.result.deadlineAt === undefined ? {} : { deadlineAt: output.result.deadlineAt }),
    });
    for (const n of notified.filter((x) => !x.filtered)) {
      await store.note('run:notified', null, { target: n.target, ending: summary.ending, ok: n.result?.ok ?? false, attempts: n.result?.attempts ?? 0, status: n.result?.status ?? null, error: n.skipped ?? n.result?.error ?? null });
    }
  } catch (error) {
    say(`reelpipe: the end-of-run hooks stopped: ${(error as Error).message} (the exit code is unchanged)\n`);
  } finally {
    await store?.close();
  }
}
