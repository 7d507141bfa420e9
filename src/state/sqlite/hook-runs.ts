import type Database from 'better-sqlite3';
import { hookRunOf, hookRunsByJob, type HookName, type HookResult, type HookRunRow, type HookTarget, type RawHookRun } from '../hook-run-rows.js';
import type { StateStore } from './job-store.js';

export type { HookName, HookResult, HookRunRow, HookRunState, HookTarget } from '../hook-run-rows.js';

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
    return hookRunOf(this.db.prepare('SELECT * FROM hook_runs WHERE id = ?').get(id) as RawHookRun);
  }

  /** The newest on_output row of each output of a job, by output index. */
  latestOfJob(jobKey: string): Map<number, HookRunRow> {
    const rows = this.db.prepare(LATEST_OF_JOB).all({ manifest: this.store.manifest, job: jobKey }) as RawHookRun[];
    return new Map(rows.map((r) => [r.output_idx ?? 0, hookRunOf(r)]));
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
  const hasTable = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'hook_runs'").get();
  if (!hasTable) return { byJob: new Map(), lastFinish: null };
  const byJob = hookRunsByJob(db.prepare(LATEST_OF_ALL).iterate({ manifest }) as Iterable<RawHookRun>);
  const finish = db.prepare("SELECT * FROM hook_runs WHERE manifest = ? AND hook = 'on_finish' ORDER BY id DESC LIMIT 1").get(manifest) as RawHookRun | undefined;
  return { byJob, lastFinish: finish ? hookRunOf(finish) : null };
}
