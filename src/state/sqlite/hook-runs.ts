import type Database from 'better-sqlite3';
import type { StateStore } from './job-store.js';

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

interface RawHookRun {
  id: number; run_id: number | null; hook: HookName; job_key: string | null; output_idx: number | null; output_sha256: string | null;
  state: HookRunState; argv: string; started_at: number; finished_at: number | null; exit_code: number | null; signal: string | null;
  timed_out: number; duration_ms: number | null; stdout_tail: string | null; stderr_tail: string | null; error: string | null;
}

const toRow = (r: RawHookRun): HookRunRow => ({
  id: r.id, runId: r.run_id, hook: r.hook, jobKey: r.job_key, outputIdx: r.output_idx, outputSha256: r.output_sha256, state: r.state,
  argv: JSON.parse(r.argv) as string[], startedAt: r.started_at, finishedAt: r.finished_at, exitCode: r.exit_code, signal: r.signal,
  timedOut: r.timed_out === 1, durationMs: r.duration_ms, stdoutTail: r.stdout_tail ?? '', stderrTail: r.stderr_tail ?? '', error: r.error,
});

/** The newest on_output row per output: of one job (by its index, for the runner), or of every job (status, the report). */
const latestPerOutput = (ofJob: boolean) => `SELECT * FROM hook_runs WHERE id IN (
  SELECT max(id) FROM hook_runs WHERE manifest = @manifest AND hook = 'on_output'${ofJob ? ' AND job_key = @job' : ''} GROUP BY job_key, output_idx)
  ORDER BY job_key, output_idx`;
const LATEST_OF_JOB = latestPerOutput(true);
const LATEST_OF_ALL = latestPerOutput(false);

/** The store's door to `hook_runs`, scoped to the store's manifest and run. */
export class HookRuns {
  constructor(private readonly store: StateStore) {}

  private get db(): Database.Database {
    return this.store.db;
  }

  /**
   * Records a hook about to start, in one transaction (the store's door makes it durable: on disk
   * before the command runs — sqlite-store.ts hookBegin). A row of the same
   * hook and output still `running` belongs to a run that died: it becomes `interrupted` in the
   * same transaction, so the record says it was cut off and is being run again.
   */
  begin(hook: HookName, target: HookTarget | null, argv: readonly string[]): number {
    const now = this.store.clock.now();
    const where = { manifest: this.store.manifest, hook, job: target?.jobKey ?? null, idx: target?.outputIdx ?? null };
    return this.store.atomically(() => {
      this.db
        .prepare(`UPDATE hook_runs SET state = 'interrupted', finished_at = @now, error = 'the run that started it ended before it did'
          WHERE manifest = @manifest AND hook = @hook AND job_key IS @job AND output_idx IS @idx AND state = 'running'`)
        .run({ ...where, now });
      const info = this.db
        .prepare(`INSERT INTO hook_runs (manifest, run_id, hook, job_key, output_idx, output_sha256, state, argv, started_at)
          VALUES (@manifest, @run, @hook, @job, @idx, @sha, 'running', @argv, @now)`)
        .run({ ...where, run: this.store.runId, sha: target?.sha256 ?? null, argv: JSON.stringify(argv), now });
      return Number(info.lastInsertRowid);
    });
  }

  /** Records how the command ended (durably, through the store's door: sqlite-store.ts hookFinish). */
  finish(id: number, result: HookResult): HookRunRow {
    this.store.atomically(() =>
      this.db
        .prepare(`UPDATE hook_runs SET state = @state, finished_at = @now, exit_code = @exitCode, signal = @signal, timed_out = @timedOut,
          duration_ms = @durationMs, stdout_tail = @stdoutTail, stderr_tail = @stderrTail, error = @error WHERE id = @id`)
        .run({
          id, state: result.ok ? 'ok' : 'failed', now: this.store.clock.now(), exitCode: result.exitCode, signal: result.signal,
          timedOut: result.timedOut ? 1 : 0, durationMs: result.durationMs, stdoutTail: result.stdoutTail, stderrTail: result.stderrTail, error: result.error,
        }),
    );
    return toRow(this.db.prepare('SELECT * FROM hook_runs WHERE id = ?').get(id) as RawHookRun);
  }

  /** The newest on_output row of each output of a job, by output index. */
  latestOfJob(jobKey: string): Map<number, HookRunRow> {
    const rows = this.db.prepare(LATEST_OF_JOB).all({ manifest: this.store.manifest, job: jobKey }) as RawHookRun[];
    return new Map(rows.map((r) => [r.output_idx ?? 0, toRow(r)]));
  }

  /**
   * `reelpipe retry --hooks`: the failed on_output hooks of these jobs become `retried`, so the
   * run that follows runs them (and only them) again. Returns how many.
   */
  retryFailed(jobKeys: readonly string[]): number {
    let n = 0;
    const mark = this.db.prepare("UPDATE hook_runs SET state = 'retried' WHERE id = ? AND state = 'failed'");
    this.store.atomically(() => {
      for (const key of jobKeys) for (const row of this.latestOfJob(key).values()) n += mark.run(row.id).changes;
    });
    return n;
  }
}

/** Every job's newest on_output rows and the manifest's newest on_finish, read-only (status, the report). */
export function readHookRuns(db: Database.Database, manifest: string): { byJob: Map<string, HookRunRow[]>; lastFinish: HookRunRow | null } {
  const byJob = new Map<string, HookRunRow[]>();
  const hasTable = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'hook_runs'").get();
  if (!hasTable) return { byJob, lastFinish: null };
  for (const raw of db.prepare(LATEST_OF_ALL).iterate({ manifest }) as Iterable<RawHookRun>) {
    const list = byJob.get(raw.job_key ?? '') ?? [];
    if (list.length === 0) byJob.set(raw.job_key ?? '', list);
    list.push(toRow(raw));
  }
  const finish = db.prepare("SELECT * FROM hook_runs WHERE manifest = ? AND hook = 'on_finish' ORDER BY id DESC LIMIT 1").get(manifest) as RawHookRun | undefined;
  return { byJob, lastFinish: finish ? toRow(finish) : null };
}
