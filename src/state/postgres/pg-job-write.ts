import { refusal } from '../account-rules.js';
import { CREATED_NOTHING } from '../charge-rules.js';
import type { JobItemRow } from '../item-rows.js';
import { filesMissing, linksOfItems, madeStatus, planAgainMove, retriableInRun } from '../job-moves.js';
import type { JobRow } from '../job-row.js';
import type { JobStatus } from '../job-status.js';
import { StaleWriteError } from '../stale-write.js';
import { toJobRow, type RawJobRow } from '../sqlite/job-row.js';
import type { EventType } from '../sqlite/events.js';
import type { DownloadedRecord, Intent, JobWrite, Written } from '../store.js';
import { planLinks } from './pg-downloads.js';
import { planMove } from './pg-job-moves.js';
import type { Parts } from './pg-parts.js';
import type { WaveItem, WaveOp, WaveView, WaveWritten } from './pg-wave.js';

/**
 * The operations a wave applies (pg-wave.ts), each planned on its jobs' rows as locked. A JobWrite
 * is planned in SQLite's order (sqlite/apply-write.ts): the guard, the attempt, the items and
 * refund, the move, the output links.
 */

type Answer<T> = (written: WaveWritten) => T;

/** An operation on the one job `key`, of the store's manifest: `locks` its row first (and `looks` at its files and items) unless told. */
function jobOp<T>(key: string, plan: (view: WaveView, parts: Parts) => Answer<T>, needs: { locks?: boolean; looks?: boolean } = {}): WaveOp<T> {
  return {
    keys: [key],
    locks: needs.locks ?? true,
    looks: needs.looks ?? false,
    plan(view, parts) {
      view.manifest();
      return plan(view, parts);
    },
  };
}

/** The status a job's files leave it in, by its items (job-moves.ts madeStatus). */
const madeOf = (items: readonly WaveItem[]): 'downloaded' | 'partly_failed' => madeStatus(items.some((i) => i.state === 'failed'));

/** One job's write. */
export function writeOp(write: JobWrite): WaveOp<Written> {
  return jobOp(write.key, (view, parts) => planWrite(view, parts, write).answer, { looks: looks(write) });
}

/**
 * Many jobs' writes (each job once) as one operation: a write that throws rejects them all; with
 * `allOrNothing`, so does one whose guard does not hold (StaleWriteError, the first such job's row).
 */
export function writeAllOp(writes: readonly JobWrite[], allOrNothing: boolean): WaveOp<Written[]> {
  return {
    keys: writes.map((w) => w.key),
    locks: true,
    looks: writes.some(looks),
    plan(view, parts) {
      view.manifest();
      const planned = writes.map((write) => planWrite(view, parts, write));
      const stale = planned.find((p) => p.stale);
      if (allOrNothing && stale?.stale) throw new StaleWriteError(toJobRow(stale.stale));
      return (written) => planned.map((p) => p.answer(written));
    },
  };
}

/** Opens an attempt and moves the job to `submitting` with its request and reservation; answers the attempt's id. */
export function intentOp(intent: Intent): WaveOp<number> {
  const op = jobOp(intent.key, (view, parts) => {
    const verdict = view.verdict(intent.key);
    if (verdict && !verdict.granted) throw refusal(verdict);
    const row = lockedRow(view, intent.key);
    parts.intents.push({ key: intent.key, request: JSON.stringify(intent.request), hook_token: intent.hookToken });
    const change = { request: intent.request, pathId: intent.pathId, creditsReserved: intent.creditsReserved };
    planMove(parts, row, 'submitting', change, { type: 'job:intent', data: { attempt: 0 }, attemptOf: intent.key }, 1);
    return (written) => written.attemptId(intent.key);
  });
  return intent.gate ? { ...op, ask: { key: intent.key, amount: intent.creditsReserved, rule: intent.gate } } : op;
}

/** `reelpipe retry`: the jobs of `keys` found in one of `from`, planned again (job-moves.ts planAgainMove). */
export function planAgainOp(keys: readonly string[], from: readonly JobStatus[], data: Record<string, unknown>): WaveOp<JobRow[]> {
  return {
    keys,
    locks: true,
    looks: false,
    plan(view, parts) {
      view.manifest();
      const planned = keys.filter((key) => {
        const row = view.row(key);
        if (!row || !from.includes(row.status as JobStatus)) return false;
        planAgain(parts, row, data);
        return true;
      });
      return (written) => planned.map((key) => toJobRow(written.row(key)));
    },
  };
}

/** An automatic retry of a job the service failed in this run: its newest attempt marked retried by the run, then planned again. */
export function retryInRunOp(key: string, data: Record<string, unknown>): WaveOp<JobRow | undefined> {
  return jobOp(key, (view, parts) => {
    const row = view.row(key);
    if (!row || !retriableInRun(row.status as JobStatus)) return () => undefined;
    parts.retried.push(key);
    planAgain(parts, row, { automatic: true, ...data });
    return (written) => toJobRow(written.row(key));
  });
}

/**
 * The end of a job's download: `last` recorded, then — every recorded file on disk with its
 * checksum, checked once more here — the job moves to downloaded (or partly_failed); else it stays.
 */
export function finishDownloadOp(key: string, last: { idx: number; file: DownloadedRecord } | undefined, files: number): WaveOp<{ row: JobRow } | { missing: number }> {
  return jobOp<{ row: JobRow } | { missing: number }>(key, (view, parts) => {
    let outputs = view.outputs(key);
    if (last) {
      parts.downloads.push(downloadPart(key, last.idx, last.file));
      outputs = outputs.map((o) => (o.idx === last.idx ? { ...o, path: last.file.path, sha256: last.file.sha256 } : o));
    }
    // Downloaded means every recorded file is on disk with its checksum: a link refreshed for one
    // file must not have taken another's record with it.
    const missing = filesMissing(outputs);
    if (missing > 0) return () => ({ missing });
    planMove(parts, lockedRow(view, key), madeOf(view.items(key)), { failedReason: null }, { type: 'job:downloaded', data: { files } });
    return (written) => ({ row: toJobRow(written.row(key)) });
  }, { looks: true });
}

/** `reelpipe retry --hooks`: a `hook_failed` job back to downloaded (or partly_failed); answers whether it moved. */
export function hooksRetryOp(key: string): WaveOp<boolean> {
  return jobOp(key, (view, parts) => {
    const row = view.row(key);
    if (row?.status !== 'hook_failed') return () => false;
    planMove(parts, row, madeOf(view.items(key)), { failedReason: null }, { type: 'job:hooks-retry', data: { previous: row.failed_reason } });
    return () => true;
  }, { looks: true });
}

/** An event of the log, in order with the writes of its turn. */
export function noteOp(type: EventType, key: string | null, data: Record<string, unknown> | undefined): WaveOp<void> {
  return {
    keys: key === null ? [] : [key],
    locks: false,
    looks: false,
    plan(_view, parts) {
      parts.events.push({ key, type, data });
      return () => undefined;
    },
  };
}

/** A file downloaded (or, `statStamp` alone, verified anew) recorded on its output. */
export function fileOp(key: string, idx: number, file: DownloadedRecord | { statStamp: string }): WaveOp<void> {
  return jobOp(key, (_view, parts) => {
    if ('sha256' in file) parts.downloads.push(downloadPart(key, idx, file));
    else parts.verified.push({ key, idx, stat_stamp: file.statStamp });
    return () => undefined;
  }, { locks: false });
}

/** The planned parts of one JobWrite, or (`stale`) the row its guard found elsewhere. */
function planWrite(view: WaveView, parts: Parts, write: JobWrite): { answer: Answer<Written>; stale?: RawJobRow } {
  const { key } = write;
  const row = lockedRow(view, key);
  if (write.onlyFrom && !write.onlyFrom.includes(row.status as JobStatus)) return { answer: () => ({ row: toJobRow(row), moved: false }), stale: row };
  if (write.attempt) {
    const { id, state, remoteId, error } = write.attempt;
    parts.closes.push({ key, id: id === 'open intent' ? null : id, state, remote_id: remoteId ?? null, error: error ?? null, nothing: CREATED_NOTHING.includes(state) });
  }
  const items = write.items ? withItems(view.items(key), write.items) : view.items(key);
  if (write.items) for (const item of write.items) parts.items.push(itemPart(key, item));
  if (write.refund) parts.refunds.push({ key, remote_id: write.refund.remoteId, credits: write.refund.credits, derived: write.refund.derived ? 1 : 0 });
  if (write.move) {
    const to = write.move.to === 'made' ? madeOf(items) : write.move.to;
    planMove(parts, row, to, write.move.change ?? {}, { type: write.move.type, data: write.move.data });
  }
  if (write.outputs) {
    const links = write.outputs === 'items' ? linksOfItems(items) : write.outputs;
    planLinks(parts, key, view.outputs(key), links.urls, links.places);
  }
  return { answer: (written) => ({ row: toJobRow(written.row(key)), moved: true }) };
}

/** Whether a write needs its job's files and items read: its links, or a move to `made`. */
const looks = (write: JobWrite): boolean => write.outputs !== undefined || write.move?.to === 'made';

function lockedRow(view: WaveView, key: string): RawJobRow {
  const row = view.row(key);
  if (!row) throw new Error(`unknown job ${key}`);
  return row;
}

function planAgain(parts: Parts, row: RawJobRow, data: Record<string, unknown>): void {
  const again = planAgainMove(toJobRow(row), data);
  if (again.lapse) parts.lapses.push(row.key);
  planMove(parts, row, 'planned', again.change, { type: 'job:retry', data: again.data });
}

/** The job's items once `items` replaced the records of their places. */
function withItems(recorded: readonly WaveItem[], items: readonly Omit<JobItemRow, 'jobKey'>[]): WaveItem[] {
  const byIdx = new Map(recorded.map((item) => [item.idx, item]));
  for (const item of items) byIdx.set(item.idx, { idx: item.idx, state: item.state, url: item.url });
  return [...byIdx.values()].sort((a, b) => a.idx - b.idx);
}

function itemPart(key: string, i: Omit<JobItemRow, 'jobKey'>): Parts['items'][number] {
  return {
    key, idx: i.idx, item: i.item, state: i.state, failed_reason: i.failedReason, attempt_id: i.attemptId, remote_id: i.remoteId, url: i.url,
    refunded: i.refunded, refund_derived: i.refundDerived ? 1 : 0,
  };
}

function downloadPart(key: string, idx: number, file: DownloadedRecord): Parts['downloads'][number] {
  return { key, idx, path: file.path, bytes: file.bytes, sha256: file.sha256, content_type: file.contentType, stat_stamp: file.statStamp };
}
