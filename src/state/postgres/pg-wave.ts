import pg from 'pg';
import { StateError } from '../../errors.js';
import { JOB_ROWS, lastReadOf, type RawJobRow } from '../sqlite/job-row.js';
import { TX_MARK_COLUMNS, markOf, type StoreTx } from './pg-commit.js';
import type { LinkedOutput } from './pg-downloads.js';
import { emit } from './pg-emit.js';
import { movedRow } from './pg-job-moves.js';
import type { OpScope } from './pg-events.js';
import { addParts, noParts, type Parts } from './pg-parts.js';
import { unique } from './pg-sql.js';
import type { GateAsk, GateVerdict, SlotLifeRule } from '../account-rules.js';
import { gate } from '../account-sql.js';
import { LOCK_ACCOUNT, pgSteps } from './pg-account.js';
import { assertFence } from '../lock/fence.js';

/**
 * A wave: the job writes queued in one turn of the event loop (pg-queue.ts), applied in one
 * transaction with as few statements as the rows allow. Why: every job commits its intent before
 * its POST and its remote id after it; one round trip per row per table made a wave of 64 jobs
 * hundreds of round trips. Here a wave is a few ROUNDS, each of at most one operation per job:
 *
 *   1. lock: the jobs it touches are read `FOR UPDATE`, in key order (two writers never deadlock
 *      on them); whatever another process changed is seen here, and nothing changes them until
 *      this transaction ends — so a decision on a row read here cannot go stale
 *   2. look: for operations that need them, the jobs' recorded files and items, read AFTER the
 *      lock (a statement's snapshot is taken when it starts: read in the locking statement they
 *      could predate a writer we waited for)
 *   3. plan: each operation checks its guard and the machine of job-status.ts on those rows and
 *      plans its parts (pg-parts.ts); one that throws is rejected alone, nothing of it written
 *   4. write: the round's parts, each kind one multi-row statement (pg-emit.ts)
 *
 * A job that two operations of the wave touch is written by the first in one round and by the
 * second in the next, so writes of one turn apply in the order they were made.
 */

/** One operation of a wave. */
export interface WaveOp<T = unknown> {
  /** The jobs it touches, each once. */
  keys: readonly string[];
  /** Whether its jobs are locked and read first (a note, or a file's record, needs neither). */
  locks: boolean;
  /** Whether it needs its jobs' recorded files and items (pg-downloads.ts LinkedOutput, WaveItem). */
  looks: boolean;
  /** Plans its parts on the rows read; throws to be rejected alone. Answers once the round is written. */
  plan(view: WaveView, parts: Parts): (written: WaveWritten) => T;
  /** An intent that asks the account first (Intent.gate): judged, with the round's others, before any is planned. */
  ask?: GateAsk & { rule: SlotLifeRule };
}

/** What an operation plans on. */
export interface WaveView {
  readonly scope: OpScope;
  /** The manifest written, or StateError when none was chosen. */
  manifest(): string;
  /** The job as locked (undefined: unknown). */
  row(key: string): RawJobRow | undefined;
  outputs(key: string): LinkedOutput[];
  items(key: string): WaveItem[];
  /** The account's verdict on the job's ask (undefined: it asked nothing, or nothing is limited). */
  verdict(key: string): GateVerdict | undefined;
}

/** A job's item as a wave reads it. */
export interface WaveItem {
  idx: number;
  state: string;
  url: string | null;
}

/** What an operation answers from, once its round is written. */
export interface WaveWritten {
  /** The job's row now (with its last read). */
  row(key: string): RawJobRow;
  /** The attempt its intent opened. */
  attemptId(key: string): number;
}

export type Outcome = { value: unknown } | { error: unknown };

/** What a wave saw, for the store to hold once it commits (pg-held-rows.ts): each job it locked as it left it, and every job its operations named. */
export interface WaveSeen {
  rows: Map<string, RawJobRow>;
  touched: Set<string>;
}

/**
 * Applies `ops` in the caller's transaction: each answers its value, or the error that rejected it
 * alone. `whole`: the wave is the transaction's whole body, so its last statement may carry the COMMIT.
 */
export async function runWave(tx: StoreTx, scope: OpScope, ops: readonly WaveOp[], whole = false, seen?: WaveSeen): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  // The first round's rows were locked with BEGIN when the transaction was started with leadLock's statement.
  let led = tx.led as (RawJobRow & Mark)[] | undefined;
  let pending = ops.map((op, i) => ({ op, i }));
  while (pending.length > 0) {
    const round: typeof pending = [];
    const later: typeof pending = [];
    const taken = new Set<string>();
    for (const entry of pending) {
      // An operation behind one on the same job waits for the next round, and so does any behind it.
      (entry.op.keys.some((key) => taken.has(key)) ? later : round).push(entry);
      for (const key of entry.op.keys) taken.add(key);
    }
    const answers = await runRound(tx, scope, round.map((e) => e.op), led, whole && later.length === 0, seen);
    led = undefined;
    round.forEach((entry, n) => (outcomes[entry.i] = answers[n]!));
    pending = later;
  }
  return outcomes;
}

async function runRound(tx: StoreTx, scope: OpScope, ops: readonly WaveOp[], led: (RawJobRow & Mark & Partial<Looked>)[] | undefined, last: boolean, seen?: WaveSeen): Promise<Outcome[]> {
  const rows = led ? locked(tx, scope, led) : await lock(tx, scope, lockKeys(scope, ops));
  const looking = unique(ops.filter((op) => op.looks).flatMap((op) => op.keys));
  const looked = led?.some((row) => row.looked !== undefined) ? lookedWithLock(led) : await look(tx, scope.manifest, looking);
  const verdicts = await askAccount(tx, scope, ops);
  const view: WaveView = {
    scope,
    manifest: () => manifestOf(scope),
    row: (key) => rows.get(key),
    outputs: (key) => looked.get(key)?.outputs ?? [],
    items: (key) => looked.get(key)?.items ?? [],
    verdict: (key) => verdicts.get(key),
  };
  const parts = noParts();
  const outcomes: Outcome[] = [];
  const answers: [number, (written: WaveWritten) => unknown][] = [];
  ops.forEach((op, i) => {
    const draft = noParts();
    try {
      answers.push([i, op.plan(view, draft)]);
      addParts(parts, draft);
    } catch (error) {
      outcomes[i] = { error };
    }
  });
  const emitted = answers.length === 0 ? undefined : await emit(tx, scope, parts, last);
  const moves = new Map(parts.moves.map((part) => [part.key, part]));
  const results = new Map(parts.results.map((r) => [r.key, r.result]));
  const written: WaveWritten = {
    row: (key) => {
      const read = rows.get(key)!;
      const move = moves.get(key);
      if (!move) return read;
      return { ...movedRow(read, move, scope.now), last_read: results.has(key) ? results.get(key)! : read.last_read };
    },
    attemptId: (key) => emitted!.attempts.get(key)!,
  };
  for (const [i, answer] of answers) {
    try {
      outcomes[i] = { value: answer(written) };
    } catch (error) {
      outcomes[i] = { error };
    }
  }
  if (seen) {
    for (const key of rows.keys()) seen.rows.set(key, written.row(key));
    for (const op of ops) for (const key of op.keys) seen.touched.add(key);
  }
  return outcomes;
}

/**
 * The account's verdicts on the round's asks (account-sql.ts gate), its row locked to the end of
 * the transaction: after the jobs' rows, so the lock order is always the same. Empty when none asks.
 */
async function askAccount(tx: StoreTx, scope: OpScope, ops: readonly WaveOp[]): Promise<Map<string, GateVerdict>> {
  const asks = ops.flatMap((op) => (op.ask ? [op.ask] : []));
  if (asks.length === 0) return new Map();
  const verdicts = await pgSteps(tx, gate(asks, asks[0]!.rule, scope.runId, LOCK_ACCOUNT), scope.clock);
  return new Map(verdicts === null ? [] : asks.map((ask, i) => [ask.key, verdicts[i]!]));
}

function manifestOf(scope: OpScope): string {
  if (scope.manifest === null) throw new StateError('no manifest chosen: call useManifest or syncPlan first');
  return scope.manifest;
}

type Mark = { tx_xid: string; tx_pid: number };

/** The jobs the operations lock (none without a manifest: those operations fail alone). */
const lockKeys = (scope: OpScope, ops: readonly WaveOp[]): string[] => (scope.manifest === null ? [] : unique(ops.filter((op) => op.locks).flatMap((op) => op.keys)));

/**
 * Step 1's statement: the jobs of `keys` locked and read in key order, with the transaction's mark
 * (pg-commit.ts); with `looks`, step 2's columns too; with `fence` (the lock the writes are fenced
 * by), the token that lock holds, its row held against a breaker until the transaction ends (lock/fence.ts).
 */
const lockSql = (manifest: string, keys: string, looks = false, fence: string | null = null): string => `SELECT ${TX_MARK_COLUMNS}${fence !== null ? `, (SELECT token FROM locks WHERE name = ${fence} FOR SHARE) AS fence_token` : ''}, j.* FROM (SELECT 1) one LEFT JOIN LATERAL (
  ${looks ? `SELECT jobs.*, ${lastReadOf('jobs')} AS last_read, ${LOOKED_COLUMNS} FROM jobs` : JOB_ROWS} WHERE manifest = ${manifest} AND key = ANY(${keys}) ORDER BY key COLLATE "C" FOR UPDATE OF jobs) j ON true`;

/**
 * Step 1 of a wave's first round as a statement to send with BEGIN (PgDb.tx `lead`), its values
 * written in: the jobs every operation of the wave locks (the first round's, and any later
 * round's, which stay locked anyway). Undefined when the wave locks nothing.
 *
 * `alone`: no other process writes these jobs — the store holds the manifest's run lock
 * (pg-held-rows.ts), and its own transactions run one at a time. Then step 2's files and items,
 * when an operation looks at them, come in the same statement: nothing can change them between
 * the statement's snapshot and the rows' lock, so the round trip step 2 needs otherwise is saved.
 */
export function leadLock(scope: OpScope | { manifest: string | null }, ops: readonly WaveOp[], alone = false, fence: string | null = null): string | undefined {
  const keys = lockKeys(scope as OpScope, ops);
  if (keys.length === 0 || scope.manifest === null) return undefined;
  const looks = alone && ops.some((op) => op.looks);
  return lockSql(pg.escapeLiteral(scope.manifest), `ARRAY[${keys.map((key) => pg.escapeLiteral(key)).join(', ')}]::text[]`, looks, fence === null ? null : pg.escapeLiteral(fence));
}

/** Step 1, in a statement of its own: with the transaction's mark while it has none (and the fence's check, when fenced). */
async function lock(tx: StoreTx, scope: OpScope, keys: readonly string[]): Promise<Map<string, RawJobRow>> {
  if (keys.length === 0 && tx.isMarked) return new Map();
  return locked(tx, scope, await tx.query<RawJobRow & Mark>(lockSql('$1', '$2::text[]', false, scope.fence === null ? null : '$3'), scope.fence === null ? [scope.manifest, keys] : [scope.manifest, keys, scope.fence.lock]));
}

/** The rows locked, once the transaction is marked and — when the writes are fenced — the run lock found still ours (else LockLostError: nothing is written). */
function locked(tx: StoreTx, scope: OpScope, found: (RawJobRow & Mark & Partial<Looked> & { fence_token?: string | null })[]): Map<string, RawJobRow> {
  tx.marked(markOf(found));
  if (scope.fence !== null) assertFence(scope.fence.lock, scope.fence.token, found[0]?.fence_token);
  return new Map(found.filter((row) => row.key !== null).map(({ looked: _, fence_token: _fence, ...row }) => [row.key, row]));
}

/** Step 2's answer, as the lead statement brought it (leadLock `alone`). */
interface Looked {
  looked: { outputs: [number, string, string | null, string | null][]; items: [number, string, string | null][] };
}

const LOOKED_COLUMNS = `json_build_object(
  'outputs', coalesce((SELECT json_agg(json_build_array(idx, url, path, sha256) ORDER BY idx) FROM outputs o WHERE o.manifest = jobs.manifest AND o.job_key = jobs.key), '[]'),
  'items', coalesce((SELECT json_agg(json_build_array(idx, state, url) ORDER BY idx) FROM job_items i WHERE i.manifest = jobs.manifest AND i.job_key = jobs.key), '[]')) AS looked`;

function lookedWithLock(led: (RawJobRow & Partial<Looked>)[]): Map<string, { outputs: LinkedOutput[]; items: WaveItem[] }> {
  return new Map(led.filter((row) => row.key !== null && row.looked).map((row) => [row.key, lookedOf(row.looked!)]));
}

const lookedOf = (found: Looked['looked']): { outputs: LinkedOutput[]; items: WaveItem[] } => ({
  outputs: found.outputs.map(([idx, url, path, sha256]) => ({ idx, url, path, sha256 })),
  items: found.items.map(([idx, state, url]) => ({ idx, state, url })),
});

/** Step 2: the recorded files and items of the jobs of `keys`, read after their lock. */
async function look(tx: StoreTx, manifest: string | null, keys: readonly string[]): Promise<Map<string, { outputs: LinkedOutput[]; items: WaveItem[] }>> {
  if (keys.length === 0 || manifest === null) return new Map();
  const rows = await tx.query<{ key: string } & Looked['looked']>(
    `SELECT k AS key,
       coalesce((SELECT json_agg(json_build_array(idx, url, path, sha256) ORDER BY idx) FROM outputs WHERE manifest = $1 AND job_key = k), '[]') AS outputs,
       coalesce((SELECT json_agg(json_build_array(idx, state, url) ORDER BY idx) FROM job_items WHERE manifest = $1 AND job_key = k), '[]') AS items
     FROM unnest($2::text[]) AS k`,
    [manifest, keys],
  );
  return new Map(rows.map((row) => [row.key, lookedOf(row)]));
}
