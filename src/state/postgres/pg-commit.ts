import type { PgDb, Rows, Tx } from './pg-connection.js';
import { CommitUnknownError } from './pg-faults.js';

/**
 * One transaction of the store, whose outcome is always known before its caller hears of it.
 *
 * Why: a COMMIT whose answer was lost (the link dropped while it was on its way) may or may not
 * have committed, and an intent is never followed by its POST until we know it is on disk. Every
 * transaction learns its own id (`pg_current_xact_id()`, the first statement's extra column, or a
 * statement of its own) and its backend's pid; when PgDb says the commit is unknown, the server is
 * asked what became of that id (`pg_xact_status`):
 *   committed ──▶ the answer computed inside it stands (nothing is sent twice)
 *   aborted (or unknown to the server) ──▶ nothing of it happened: the transaction runs again
 *   in progress ──▶ the old backend has not finished, or has not seen that its client left: it is
 *     ended (only if it still runs that transaction) and asked about again
 * A deadlock or a serialization failure (another writer, locking in another order) rolled the
 * transaction back whole: it runs again too, a few times.
 */

/** A transaction as the store's bodies see it: statements, and where to leave the id when a statement read it. */
export interface StoreTx extends Tx {
  /** The transaction's id and backend, when a statement of the body read them (TX_MARK_COLUMNS). */
  marked(mark: TxMark): void;
  /** Whether a statement read them already. */
  readonly isMarked: boolean;
}

/** A transaction's id (xid8, as text) and the pid of the backend that ran it. */
export interface TxMark {
  xid: string;
  pid: number;
}

/** The columns a body's first statement may carry so no statement of its own is spent on the mark. */
export const TX_MARK_COLUMNS = 'pg_current_xact_id()::text AS tx_xid, pg_backend_pid() AS tx_pid';

/** Deadlock, serialization failure: the transaction was rolled back whole and may simply run again. */
const RUN_AGAIN = new Set(['40P01', '40001']);
const RUNS = 5;

export async function transact<T>(db: PgDb, body: (tx: StoreTx) => Promise<T>, options: { durable?: boolean; doing?: string; lead?: string | undefined } = {}): Promise<T> {
  for (let run = 1; ; run++) {
    let mark: TxMark | undefined;
    let value: T | undefined;
    try {
      const { lead, ...rest } = options;
      return await db.tx(async (tx) => {
        mark = undefined;
        const storeTx: StoreTx = {
          ...(tx.led ? { led: tx.led } : {}),
          ...(tx.commitWith ? { commitWith: tx.commitWith } : {}),
          query: (sql, params) => tx.query(sql, params),
          values: (sql, params) => tx.values(sql, params),
          marked: (m) => (mark = m),
          get isMarked() {
            return mark !== undefined;
          },
        };
        value = await body(storeTx);
        mark ??= markOf(await tx.query(`SELECT ${TX_MARK_COLUMNS}`));
        return value;
      }, lead === undefined ? rest : { ...rest, lead });
    } catch (error) {
      if (error instanceof CommitUnknownError && mark) {
        const outcome = await outcomeOf(db, mark);
        if (outcome === 'committed') return value as T;
        if (outcome === 'aborted') continue;
      }
      if (run < RUNS && RUN_AGAIN.has((error as { code?: string }).code ?? '')) continue;
      throw error;
    }
  }
}

/** The mark from a row carrying TX_MARK_COLUMNS. */
export function markOf(rows: Rows<object>): TxMark {
  const row = rows[0] as { tx_xid: string; tx_pid: number };
  return { xid: row.tx_xid, pid: row.tx_pid };
}

/** How many times a transaction still in progress is asked about before its commit stays unknown (CommitUnknownError). */
const ASKS = 12;

/** What became of a transaction whose COMMIT answer was lost (see above); `unknown` once asking gave no answer. */
async function outcomeOf(db: PgDb, mark: TxMark): Promise<'committed' | 'aborted' | 'unknown'> {
  for (let asked = 0; asked < ASKS; asked++) {
    const [row] = await db.query<{ status: string | null }>('SELECT pg_xact_status($1::xid8) AS status', [mark.xid]);
    if (row?.status === 'committed') return 'committed';
    if (row?.status !== 'in progress') return 'aborted';
    // Only the backend still running that very transaction: a pid alone may be someone else's by now.
    await db.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid = $1 AND backend_xid = $2::xid8::xid', [mark.pid, mark.xid]);
    await new Promise((resolve) => setTimeout(resolve, Math.min(50 * 2 ** asked, 1_000)));
  }
  return 'unknown';
}
