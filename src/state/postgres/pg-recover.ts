import type { KeySet } from '../job-change.js';
import { interruptedWrite } from '../job-moves.js';
import type { JobRow } from '../job-row.js';
import { StaleWriteError } from '../stale-write.js';
import type { JobWrite, Written } from '../store.js';
import { TX_MARK_COLUMNS, markOf, type StoreTx } from './pg-commit.js';
import { answers, withManifest, type OpScope } from './pg-events.js';
import { writeOp } from './pg-job-write.js';
import { runWave } from './pg-wave.js';
import { RUN_LOCKS } from './pg-members.js';

/**
 * The store's operations that run waves one after another in one transaction of their own
 * (pg-store.ts): a start's recovery, and a list of writes that names a job twice.
 */

/**
 * Store.recoverInterrupted: the manifest's `submitting` jobs among `keys` moved to in doubt, each
 * guarded (a job another process moved since the scan is left where it is now). A job another
 * member of the run holds (its lock standing: pg-members.ts) is not touched: its POST may be on the wire.
 */
export async function recoverInterrupted(tx: StoreTx, scope: OpScope, keys: KeySet, why: string): Promise<JobRow[]> {
  const manifest = withManifest(scope).manifest;
  const found = await tx.query<{ key: string | null; tx_xid: string; tx_pid: number }>(
    `SELECT ${TX_MARK_COLUMNS}, j.key FROM (SELECT 1) one LEFT JOIN jobs j ON j.manifest = $1 AND j.status = 'submitting'
       AND (j.claim_run IS NULL OR j.claim_run NOT IN (SELECT run_id FROM locks WHERE ${RUN_LOCKS('$1')} AND run_id IS NOT NULL AND run_id IS DISTINCT FROM $2::bigint))
     ORDER BY j.key COLLATE "C"`,
    [manifest, scope.runId],
  );
  tx.marked(markOf(found));
  const orphans = found.flatMap((row) => (row.key !== null && keys.has(row.key) ? [row.key] : []));
  const written = await answers<Written>(runWave(tx, scope, orphans.map((key) => writeOp({ ...interruptedWrite(key, why), onlyFrom: ['submitting'] }))));
  return written.filter((w) => w.moved).map((w) => w.row);
}

/** Store.writeAll of a list that writes a job twice: its writes one after another, in order. */
export async function writeInTurn(tx: StoreTx, scope: OpScope, writes: readonly JobWrite[], allOrNothing: boolean): Promise<Written[]> {
  const written: Written[] = [];
  for (const write of writes) {
    const [w] = await answers<Written>(runWave(tx, scope, [writeOp(write)]));
    if (allOrNothing && !w!.moved) throw new StaleWriteError(w!.row);
    written.push(w!);
  }
  return written;
}
