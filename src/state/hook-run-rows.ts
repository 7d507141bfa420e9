import { byJob } from './by-job.js';

/** The manifest hooks (docs/hooks.md): one per output file of a job, and one at the end of a run. */
export type HookName = 'on_output' | 'on_finish';

/**
 * The life of one hook run, a row of `hook_runs`, written BEFORE the command starts and AFTER it
 * ends, so a kill at any instant is seen by the next run:
 *
 *   running ──(the command exited 0)──▶ ok
 *   running ──(exit code not 0, a signal, its timeout, or it could not start)──▶ failed
 *   running ──(found by a later run: the run that started it died)──▶ interrupted (run again)
 *   failed ──(`reelpipe retry --hooks`)──▶ retried (run again)
 *
 * The newest row of an output decides: `ok` and `failed` stand (a failed hook waits for
 * `retry --hooks`); none yet, `interrupted`, `retried`, or an `ok` for another file (its
 * checksum differs) means the hook is owed.
 */
export type HookRunState = 'running' | 'ok' | 'failed' | 'interrupted' | 'retried';

/** How a hook's command ended (src/run/hooks/run-command.ts). */
export interface HookResult {
  ok: boolean;
  /** null when it did not exit by itself (a signal, a timeout) or never started. */
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  durationMs: number;
  /** The last few KB of each stream, credentials redacted. */
  stdoutTail: string;
  stderrTail: string;
  /** Why it could not start or was cut off, in words; null when it ran and exited. */
  error: string | null;
}

export interface HookRunRow extends Omit<HookResult, 'ok' | 'durationMs'> {
  id: number;
  runId: number | null;
  hook: HookName;
  jobKey: string | null;
  outputIdx: number | null;
  /** The checksum of the file the hook ran for: a file fetched again with other bytes is another output. */
  outputSha256: string | null;
  state: HookRunState;
  /** The arguments as substituted, with {{ env.X }} left as written and credentials redacted. */
  argv: string[];
  startedAt: number;
  finishedAt: number | null;
  durationMs: number | null;
}

/** What a hook runs for: one output file of a job, or nothing (on_finish). */
export interface HookTarget {
  jobKey: string;
  outputIdx: number;
  sha256: string | null;
}

/** A hook_runs row as a statement answers it (SELECT *). */
export interface RawHookRun {
  id: number; run_id: number | null; hook: HookName; job_key: string | null; output_idx: number | null; output_sha256: string | null;
  state: HookRunState; argv: string; started_at: number; finished_at: number | null; exit_code: number | null; signal: string | null;
  timed_out: number; duration_ms: number | null; stdout_tail: string | null; stderr_tail: string | null; error: string | null;
}

export const hookRunOf = (r: RawHookRun): HookRunRow => ({
  id: r.id, runId: r.run_id, hook: r.hook, jobKey: r.job_key, outputIdx: r.output_idx, outputSha256: r.output_sha256, state: r.state,
  argv: JSON.parse(r.argv) as string[], startedAt: r.started_at, finishedAt: r.finished_at, exitCode: r.exit_code, signal: r.signal,
  timedOut: r.timed_out === 1, durationMs: r.duration_ms, stdoutTail: r.stdout_tail ?? '', stderrTail: r.stderr_tail ?? '', error: r.error,
});

/** Each job's hook runs, in the order read (the newest on_output row of each output, by job and place). */
export const hookRunsByJob = (rows: Iterable<RawHookRun>): Map<string, HookRunRow[]> => byJob(rows, (raw) => [raw.job_key ?? '', hookRunOf(raw)]);
