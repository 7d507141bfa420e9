import { sameOutput } from '../sqlite/same-output.js';
import type { StoreTx } from './pg-commit.js';
import { TX_MARK_COLUMNS, markOf } from './pg-commit.js';
import { appendEvents, type OpScope } from './pg-events.js';
import type { Parts } from './pg-parts.js';
import type { Sql } from './pg-sql.js';

/**
 * A job's output files on PostgreSQL: their links, downloads, checksums and moves (SQLite:
 * sqlite/store-core.ts). Links and downloads are parts of a wave (pg-wave.ts); a move is an
 * operation of its own.
 */

/** A recorded output as a wave reads it under its job's lock. */
export interface LinkedOutput {
  idx: number;
  url: string;
  path: string | null;
  sha256: string | null;
}

/**
 * Plans a job's links: each URL at its place. A link to the same file (same origin and path; a
 * re-signed query does not make another file, see same-output.ts) keeps what was downloaded from
 * it; a link to another file forgets the old path and checksum, so the output is fetched again and
 * never taken as done on the old record. Places no longer linked are dropped.
 */
export function planLinks(parts: Parts, key: string, current: readonly LinkedOutput[], urls: readonly string[], places: readonly number[]): void {
  if (sameLinks(current, urls, places)) return;
  const recorded = new Map(current.map((row) => [row.idx, row.url]));
  const wanted = new Map(urls.map((url, i) => [places[i] ?? i, url]));
  for (const [idx, url] of wanted) {
    const old = recorded.get(idx);
    if (old === undefined) parts.linked.push({ key, idx, url });
    else parts.relinked.push({ key, idx, url, keep: sameOutput(old, url) });
  }
  for (const idx of recorded.keys()) if (!wanted.has(idx)) parts.unlinked.push({ key, idx });
}

/** The same links as recorded, each at its place (every download after the first look): nothing to write. */
export const sameLinks = (current: readonly { idx: number; url: string }[], urls: readonly string[], places: readonly number[]): boolean =>
  current.length === urls.length && current.every((row, i) => row.idx === places[i] && row.url === urls[i]);

/** The columns a download fills, forgotten when a link names another file. */
const DOWNLOADED = ['path', 'bytes', 'sha256', 'content_type', 'downloaded_at', 'mtime_ns', 'stat_stamp'];

/** Adds the round's links, downloads and verifications to `sql`, one CTE for each kind present. */
export function filesCtes(sql: Sql, manifest: string, now: number, parts: Parts): void {
  const m = (): string => sql.shared('manifest', manifest, 'text');
  const at = (): string => `outputs.manifest = ${m()} AND outputs.job_key = v.key AND outputs.idx = v.idx`;
  if (parts.relinked.length > 0) {
    sql.with('relinked', `UPDATE outputs SET url = v.url, ${DOWNLOADED.map((c) => `${c} = CASE WHEN v.keep THEN outputs.${c} END`).join(', ')}
      FROM ${sql.rows(parts.relinked, 'key text, idx bigint, url text, keep boolean')} WHERE ${at()}`);
  }
  if (parts.linked.length > 0) {
    sql.with('linked', `INSERT INTO outputs (manifest, job_key, idx, url) SELECT ${m()}, v.key, v.idx, v.url FROM ${sql.rows(parts.linked, 'key text, idx bigint, url text')}`);
  }
  if (parts.unlinked.length > 0) sql.with('unlinked', `DELETE FROM outputs USING ${sql.rows(parts.unlinked, 'key text, idx bigint')} WHERE ${at()}`);
  if (parts.downloads.length > 0) {
    sql.with('downloaded', `UPDATE outputs SET path = v.path, bytes = v.bytes, sha256 = v.sha256, content_type = v.content_type,
        downloaded_at = ${sql.shared('now', now, 'bigint')}, stat_stamp = v.stat_stamp
      FROM ${sql.rows(parts.downloads, 'key text, idx bigint, path text, bytes bigint, sha256 text, content_type text, stat_stamp text')} WHERE ${at()}`);
  }
  if (parts.verified.length > 0) {
    sql.with('verified', `UPDATE outputs SET stat_stamp = v.stat_stamp FROM ${sql.rows(parts.verified, 'key text, idx bigint, stat_stamp text')} WHERE ${at()}`);
  }
}

/** A recorded output's file moved to `path` (null: it is gone), its checksum kept; logged on the job with where it was. */
export async function moveOutput(tx: StoreTx, scope: OpScope & { manifest: string }, key: string, idx: number, path: string | null, why: string): Promise<void> {
  const rows = await tx.query<{ tx_xid: string; tx_pid: number; found: boolean; from: string | null }>(
    `WITH old AS (SELECT job_key, idx, path FROM outputs WHERE manifest = $1 AND job_key = $2 AND idx = $3 FOR UPDATE),
     moved AS (UPDATE outputs o SET path = $4, stat_stamp = NULL FROM old WHERE o.manifest = $1 AND o.job_key = old.job_key AND o.idx = old.idx)
     SELECT ${TX_MARK_COLUMNS}, EXISTS (SELECT 1 FROM old) AS found, (SELECT path FROM old) AS from`,
    [scope.manifest, key, idx, path],
  );
  tx.marked(markOf(rows));
  const from = rows[0]?.found ? { from: rows[0].from } : {};
  await appendEvents(tx, scope, [{ key, type: 'job:file-moved', data: { idx, ...from, to: path, why } }]);
}
