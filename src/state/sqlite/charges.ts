import type Database from 'better-sqlite3';
import type { KeySet } from '../job-change.js';
import type { AttemptState } from './job-row.js';
import { CREATED_NOTHING, supersededJobs } from '../charge-rules.js';
import { statement } from './statements.js';

/**
 * The charges table: one record per remote job a request made (or may have made) — the money's
 * own ledger, never deleted (migration 14 says why). Its life:
 *
 *   (intent committed) ──▶ open      reserved = the job's reservation; charged unknown
 *   open ──(attempt provably created nothing: not sent, a 400, proved absent)──▶ none (0)
 *   open ──(the remote job ended, its credits_used read — or not reported: null)──▶ settled
 *
 * `charged` is what the remote job cost the account, as the service reports it (credits_used,
 * net of the refunds it gave); `refunded` says what was given back for its failed items (an HTML
 * ad per style), `refund_derived` when that figure comes from the price rule rather than the
 * service. `lapsed` says why a charge no longer counts toward its job's own figure: `retried` (an
 * earlier, failed attempt of the same job: still the job's), `superseded` (a job of an edited
 * row, replaced by the new one), `forgotten` (`reelpipe forget`). Every total counts every
 * charge, lapsed or not (state/sqlite/money.ts).
 *
 * Every change here runs inside the store's transaction that moves the job or its attempt.
 */
export type ChargeState = 'open' | 'settled' | 'none';
export type LapseReason = 'retried' | 'superseded' | 'forgotten';


export class Charges {
  constructor(
    private readonly db: Database.Database,
    private readonly manifest: () => string,
    private readonly now: () => number,
  ) {}

  /** The intent of `attemptId` is being committed: its charge opens, made by `runId`. */
  open(key: string, attemptId: number, runId: number | null): void {
    statement(this.db, `INSERT INTO charges (manifest, job_key, step, kind, output_name, attempt_id, run_id, state, created_at)
      SELECT manifest, key, step, kind, output_name, ?, ?, 'open', ? FROM jobs WHERE manifest = ? AND key = ?`)
      .run(attemptId, runId, this.now(), this.manifest(), key);
  }

  /** An attempt was closed: one that created nothing costs nothing; an answered one names its remote job. */
  closed(attemptId: number, state: AttemptState, remoteId: string | undefined): void {
    if (CREATED_NOTHING.includes(state)) {
      statement(this.db, "UPDATE charges SET state = 'none', reserved = 0, charged = 0, settled_at = ? WHERE attempt_id = ? AND state = 'open'")
        .run(this.now(), attemptId);
    } else if (remoteId !== undefined) {
      statement(this.db, 'UPDATE charges SET remote_id = ? WHERE attempt_id = ?').run(remoteId, attemptId);
    }
  }

  /**
   * A move of the job, on its open charge (its newest attempt's): it now holds `reserved`, names
   * `remoteId` when given, and is settled at `settle` when given (null: the service did not say
   * what it charged) — one statement for all three, or none when the move changes none.
   */
  onMove(key: string, change: { reserved?: number | undefined; remoteId?: string | null | undefined; settle?: number | null | undefined }): void {
    const sets: string[] = [];
    const values: unknown[] = [];
    if (change.reserved !== undefined) {
      sets.push('reserved = ?');
      values.push(change.reserved);
    }
    if (change.remoteId) {
      sets.push('remote_id = ?');
      values.push(change.remoteId);
    }
    if (change.settle !== undefined) {
      sets.push("state = 'settled'", 'charged = ?', 'settled_at = ?');
      values.push(change.settle, this.now());
    }
    if (sets.length === 0) return;
    statement(this.db, `UPDATE charges SET ${sets.join(', ')} WHERE id = (SELECT max(id) FROM charges WHERE manifest = ? AND job_key = ? AND state = 'open')`)
      .run(...values, this.manifest(), key);
  }

  /** Refunds recorded for the items of the job's remote job `remoteId` (derived: from the price rule). */
  refund(key: string, remoteId: string, refunded: number, derived: boolean): void {
    statement(this.db, 'UPDATE charges SET refunded = ?, refund_derived = ? WHERE manifest = ? AND job_key = ? AND remote_id = ?')
      .run(refunded, derived ? 1 : 0, this.manifest(), key, remoteId);
  }

  /**
   * The job's settled charges no longer count toward its own figure, for `reason`: `retried` marks
   * those not lapsed yet; `forgotten` marks every one (the whole job is forgotten, its earlier
   * attempts with it).
   */
  lapse(key: string, reason: Exclude<LapseReason, 'superseded'>): void {
    // A forgotten job's attempts are deleted, and their ids may be handed out again: its charges
    // let go of them (they keep the remote id, the run and the cost).
    const sql = reason === 'retried'
      ? "UPDATE charges SET lapsed = ?, lapsed_at = ? WHERE manifest = ? AND job_key = ? AND lapsed IS NULL AND state <> 'open'"
      : "UPDATE charges SET lapsed = ?, lapsed_at = ?, attempt_id = NULL WHERE manifest = ? AND job_key = ? AND lapsed IS NOT 'forgotten' AND state <> 'open'";
    statement(this.db, sql).run(reason, this.now(), this.manifest(), key);
  }

  /**
   * Marks as superseded the charges of the jobs the plan `keys` (of `steps`) supersedes
   * (charge-rules.ts supersededJobs: an edited row's earlier job); a job back in the plan (the
   * edit undone) counts as its own again. `outside`: the manifest has a job outside the plan
   * (without one, none is superseded, and its jobs' places are not read: 0.25 s at 100,000 jobs).
   */
  supersede(keys: KeySet, steps: ReadonlySet<string>, outside: boolean): void {
    const manifest = this.manifest();
    if (outside) {
      const rows = statement(this.db, 'SELECT key, step, output_name FROM jobs WHERE manifest = ?', { raw: true }).all(manifest) as [string, string, string | null][];
      const now = this.now();
      const mark = statement(this.db, "UPDATE charges SET lapsed = 'superseded', lapsed_at = ? WHERE manifest = ? AND job_key = ? AND lapsed IS NULL");
      for (const key of supersededJobs(rows, keys, steps)) mark.run(now, manifest, key);
    }
    // Only the few jobs with superseded charges are looked at again: a re-run writes nothing.
    const superseded = statement(this.db, "SELECT DISTINCT job_key FROM charges WHERE manifest = ? AND lapsed = 'superseded'", { pluck: true }).all(manifest) as string[];
    const unmark = statement(this.db, "UPDATE charges SET lapsed = NULL, lapsed_at = NULL WHERE manifest = ? AND job_key = ? AND lapsed = 'superseded'");
    for (const key of superseded) if (keys.has(key)) unmark.run(manifest, key);
  }
}
