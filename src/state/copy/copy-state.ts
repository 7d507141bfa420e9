import { StateMismatchError, UsageError } from '../../errors.js';
import { COPIED_TABLES, type CreditSums, type StateTables } from './state-tables.js';

/** Rows read and written at a time: memory stays flat whatever the state's size. */
const CHUNK = 1_000;

export interface CopyReport {
  from: string;
  to: string;
  /** Rows of each table, as counted on both sides after the copy. */
  rows: { table: string; count: number }[];
  credits: CreditSums;
}

/**
 * `reelpipe state copy FROM TO`: every row of every table of FROM into TO, in one transaction on
 * TO, then checked: each table's row count and the money's sums equal on both sides.
 *
 * Refused (exit 2, nothing written) when TO already holds anything (a copy never merges two
 * histories: which of two records of one job is the truth?) and while FROM holds a run lock (a run
 * writing FROM meanwhile would leave its last moves out of the copy — and the copy would then pay
 * for them again).
 */
export async function copyState(from: StateTables, openTo: () => Promise<StateTables>): Promise<CopyReport> {
  const held = await from.locks();
  if (held.length > 0) {
    const lock = held[0]!;
    throw new UsageError(
      `state copy: ${from.shown} holds a run lock (${lock.name}, pid ${lock.pid} on ${lock.host}): copy it once that run has ended (reelpipe unlock shows who holds it)`,
    );
  }
  // Opened only once FROM may be copied: a refused copy creates no TO file.
  const to = await openTo();
  try {
    return await copyInto(from, to);
  } finally {
    await to.close();
  }
}

async function copyInto(from: StateTables, to: StateTables): Promise<CopyReport> {
  for (const { table } of COPIED_TABLES) {
    if (table === 'meta') continue;
    const rows = await to.count(table);
    if (rows > 0) throw new UsageError(`state copy: ${to.shown} is not empty (${table}: ${rows} rows): copy into a new, empty state`);
  }
  await to.fill(async (put) => {
    for (const { table, order } of COPIED_TABLES) {
      for await (const rows of from.read(table, order, CHUNK)) await put(table, rows);
    }
  });
  const rows: CopyReport['rows'] = [];
  for (const { table } of COPIED_TABLES) {
    const [here, there] = [await from.count(table), await to.count(table)];
    if (here !== there) throw new StateMismatchError(`state copy: ${table} has ${here} rows in ${from.shown} but ${there} in ${to.shown} after the copy`);
    rows.push({ table, count: here });
  }
  const [before, after] = [await from.credits(), await to.credits()];
  for (const field of ['charged', 'reserved', 'refunded', 'used'] as const) {
    if (before[field] !== after[field]) {
      throw new StateMismatchError(`state copy: credits ${field} sum to ${before[field]} in ${from.shown} but ${after[field]} in ${to.shown} after the copy`);
    }
  }
  return { from: from.shown, to: to.shown, rows, credits: before };
}
