import { CLOSED_CHARGES, lapsesCte, refundsCte } from './pg-charges.js';
import type { StoreTx } from './pg-commit.js';
import { filesCtes } from './pg-downloads.js';
import { eventsCte, type EventRow, type OpScope } from './pg-events.js';
import { movesCtes } from './pg-job-moves.js';
import type { ItemPart, Parts } from './pg-parts.js';
import { Sql } from './pg-sql.js';

/** What a round wrote that its operations answer with: the attempts opened (their ids the database's). */
export interface Emitted {
  attempts: Map<string, number>;
}

/** Sends one statement of a round: built `inline`, the wave's last, which goes with the COMMIT (PgDb.tx commitWith). */
type Send = (sql: Sql, main: string) => Promise<void>;

/** The parts written by step 3, beside the attempts and the moves. */
const SIDE = ['items', 'refunds', 'lapses', 'retried', 'relinked', 'linked', 'unlinked', 'downloads', 'verified'] as const;

/**
 * Sends what a round of a wave planned, in the order SQLite's store writes one JobWrite (the
 * attempt, the items and refund, the move, the links), each kind as one multi-row statement and
 * each statement only when something of its kind was planned:
 *   1. the attempts opened (intents) and their charges — their ids are the database's
 *   2. the attempts closed and their charges (a move's charge update must see them closed)
 *   3. items, refunds, lapses, automatic retries, links, downloads (in step 4's statement when they can be)
 *   4. the moves, with last reads, attempts' ends, open charges, and every event of the round
 * `last`: the wave's last round, whose last statement goes with the COMMIT (one round trip less).
 */
export async function emit(tx: StoreTx, opScope: OpScope, parts: Parts, last = false): Promise<Emitted> {
  // Only events may be written without a manifest (the operations that write more asked for it).
  const scope = { ...opScope, manifest: opScope.manifest ?? '' };
  const kinds = { closes: parts.closes.length > 0, side: SIDE.some((k) => parts[k].length > 0), moves: parts.moves.length > 0 || parts.events.length > 0 };
  // Never the intents' statement: its ids are answered.
  const final = last && tx.commitWith ? (['moves', 'side', 'closes'] as const).find((kind) => kinds[kind]) : undefined;
  const sqlFor = (kind: keyof typeof kinds): Sql => new Sql(kind === final);
  const send: Send = async (sql, main) => {
    if (sql.inline) tx.commitWith!(sql.text(main));
    else await tx.query(sql.text(main), sql.params);
  };
  const attempts = parts.intents.length > 0 ? await openAttempts(tx, scope, parts.intents) : new Map<string, number>();
  if (kinds.closes) await closeAttempts(send, sqlFor('closes'), scope, parts.closes);
  // Step 3 rides with step 4 when none of its rows is one step 4 writes too: a refund's charge may
  // be the one a move settles, a retried attempt the one a move ends (a row is written once per statement).
  const alongside = kinds.moves && parts.refunds.length === 0 && parts.retried.length === 0;
  if (kinds.side && !alongside) {
    const side = sqlFor('side');
    sideCtes(side, scope, parts);
    await send(side, 'SELECT 1');
  }
  if (!kinds.moves) return { attempts };
  const sql = sqlFor('moves');
  if (kinds.side && alongside) sideCtes(sql, scope, parts);
  movesCtes(sql, scope.manifest, scope.now, parts);
  const events: EventRow[] = parts.events.map((e) => (e.attemptOf === undefined ? e : { ...e, data: { ...e.data, attempt: attempts.get(e.attemptOf) } }));
  if (events.length > 0) eventsCte(sql, opScope, events);
  await send(sql, 'SELECT 1');
  return { attempts };
}

async function openAttempts(tx: StoreTx, scope: OpScope & { manifest: string }, intents: Parts['intents']): Promise<Map<string, number>> {
  const sql = new Sql();
  const [m, run, now] = [sql.$(scope.manifest, 'text'), sql.$(scope.runId, 'bigint'), sql.$(scope.now, 'bigint')];
  sql.with('opened', `INSERT INTO attempts (manifest, job_key, run_id, state, request, intent_at, hook_token)
    SELECT ${m}, v.key, ${run}, 'intent', v.request, ${now}, v.hook_token
    FROM ${sql.rows(intents.map((intent, ord) => ({ ord, ...intent })), 'ord int, key text, request text, hook_token text')} ORDER BY v.ord
    RETURNING id, job_key`);
  // Its charge opens with it, made by the run (charges.ts).
  sql.with('charge', `INSERT INTO charges (manifest, job_key, step, kind, output_name, attempt_id, run_id, state, created_at)
    SELECT j.manifest, j.key, j.step, j.kind, j.output_name, a.id, ${run}, 'open', ${now} FROM opened a JOIN jobs j ON j.manifest = ${m} AND j.key = a.job_key`);
  const rows = await tx.query<{ id: number; job_key: string }>(sql.text('SELECT id, job_key FROM opened'), sql.params);
  return new Map(rows.map((row) => [row.job_key, row.id]));
}

async function closeAttempts(send: Send, sql: Sql, scope: OpScope & { manifest: string }, closes: Parts['closes']): Promise<void> {
  const now = sql.$(scope.now, 'bigint');
  // `id` null: the job's newest attempt, only while it is still an open intent (no answer recorded).
  sql.with('closed', `UPDATE attempts SET state = v.state, answered_at = ${now}, remote_id = v.remote_id, error = v.error
    FROM ${sql.rowsWith(closes, 'key text, id bigint, state text, remote_id text, error text, nothing boolean',
      `coalesce(v.id, (SELECT max(id) FROM attempts o WHERE o.manifest = ${sql.$(scope.manifest, 'text')} AND o.job_key = v.key))`, 'attempt_id')}
    WHERE attempts.id = v.attempt_id
      AND (v.id IS NOT NULL OR attempts.state = 'intent')
    RETURNING attempts.id, v.nothing, v.remote_id`);
  await send(sql, CLOSED_CHARGES(now));
}

/** Step 3: whatever of items, refunds, lapses, retries and files the round planned, as CTEs of one statement. */
function sideCtes(sql: Sql, scope: OpScope & { manifest: string }, parts: Parts): void {
  const m = (): string => sql.shared('manifest', scope.manifest, 'text');
  if (parts.items.length > 0) itemsCte(sql, m(), scope.now, parts.items);
  if (parts.refunds.length > 0) refundsCte(sql, scope.manifest, parts.refunds);
  if (parts.lapses.length > 0) lapsesCte(sql, scope.manifest, scope.now, parts.lapses);
  if (parts.retried.length > 0) {
    // A run without a row (the runner used as a library) counts as run 0.
    sql.with('retried', `UPDATE attempts SET retried_in_run = ${sql.$(scope.runId ?? 0, 'bigint')}
      WHERE id IN (SELECT max(id) FROM attempts WHERE manifest = ${m()} AND job_key = ANY(${sql.$(parts.retried, 'text[]')}) GROUP BY job_key)`);
  }
  filesCtes(sql, scope.manifest, scope.now, parts);
}

/** What a remote job made of the items it was asked for: each replaces its place's record (the last one planned, when two name one place). */
function itemsCte(sql: Sql, m: string, now: number, items: readonly ItemPart[]): void {
  const last = [...new Map(items.map((i) => [`${i.key}\u0000${i.idx}`, i])).values()];
  sql.with('items', `INSERT INTO job_items (manifest, job_key, idx, item, state, failed_reason, attempt_id, remote_id, url, refunded, refund_derived, updated_at)
    SELECT ${m}, v.key, v.idx, v.item, v.state, v.failed_reason, v.attempt_id, v.remote_id, v.url, v.refunded, v.refund_derived, ${sql.shared('now', now, 'bigint')}
    FROM ${sql.rows(last, 'key text, idx bigint, item text, state text, failed_reason text, attempt_id bigint, remote_id text, url text, refunded float8, refund_derived bigint')}
    ON CONFLICT (manifest, job_key, idx) DO UPDATE SET item = excluded.item, state = excluded.state, failed_reason = excluded.failed_reason,
      attempt_id = excluded.attempt_id, remote_id = excluded.remote_id, url = excluded.url, refunded = excluded.refunded,
      refund_derived = excluded.refund_derived, updated_at = excluded.updated_at`);
}
