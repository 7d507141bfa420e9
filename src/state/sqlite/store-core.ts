import type Database from 'better-sqlite3';
import { StateError } from '../../errors.js';
import type { Clock } from '../../util/clock.js';
import { byJob } from '../by-job.js';
import { unlessHeld } from './busy.js';
import { appendEvent, type EventType } from './events.js';
import type { OutputRow } from './job-row.js';
import { OUTPUT_COLUMNS, outputFromValues } from './job-row.js';
import { sameOutput } from './same-output.js';
import { statement } from './statements.js';

const VERSION = "SELECT data_version || ':' || total_changes() FROM pragma_data_version()";

/**
 * What every part of the store stands on — the connection, its transactions, the manifest it is
 * scoped to, the event log — and the records of jobs' output files (their links, downloads,
 * checksums and moves). StateStore (store.ts) adds the jobs, attempts, runs and money.
 */
export abstract class StoreCore {
  readonly db: Database.Database;
  readonly clock: Clock;
  runId: number | null = null;
  private scope: string | null = null;
  /** One transaction wrapper for every call (better-sqlite3 builds one per `transaction(fn)`). */
  protected readonly transact: Database.Transaction<(fn: () => unknown) => unknown>;

  constructor(db: Database.Database, clock: Clock) {
    this.db = db;
    this.clock = clock;
    this.transact = db.transaction((fn: () => unknown) => fn());
    db.function('same_output', { deterministic: true }, (a: unknown, b: unknown) => (sameOutput(String(a), String(b)) ? 1 : 0));
  }

  /**
   * Runs `fn` in one IMMEDIATE transaction with `synchronous=FULL`, so the commit is on disk
   * before this returns. Policy: used for the intent row and the remote id, the two writes that
   * decide whether a job is paid for twice; everything else settles for WAL's NORMAL.
   */
  durably<T>(fn: () => T): T {
    statement(this.db, 'PRAGMA synchronous = FULL').run();
    try {
      return this.immediately(fn);
    } finally {
      statement(this.db, 'PRAGMA synchronous = NORMAL').run();
    }
  }

  /**
   * What the file holds, as a word that changes with every row written since, by this connection
   * (`total_changes()`) or any other (`data_version`), and with the manifest chosen (read-memo.ts).
   */
  version(): string {
    return `${statement(this.db, VERSION, { pluck: true }).get() as string}:${this.scope ?? ''}`;
  }

  /** Runs `fn` in one IMMEDIATE transaction. */
  atomically<T>(fn: () => T): T {
    return this.immediately(fn);
  }

  /**
   * Every write transaction of the store: IMMEDIATE (SQLite's write lock taken at BEGIN, so two
   * processes never deadlock upgrading a read), and refused as StateBusyError (busy.ts) when another
   * process has held that lock past the busy timeout.
   */
  protected immediately<T>(fn: () => T): T {
    return unlessHeld(this.db, () => this.transact.immediate(fn) as T);
  }

  /**
   * Chooses the manifest whose jobs this store reads and writes: a job is identified by
   * (manifest, key), so two manifests with an identical job each own their row. `syncPlan`
   * chooses it too.
   */
  useManifest(manifest: string): this {
    this.scope = manifest;
    return this;
  }

  /** The manifest chosen by useManifest / syncPlan. */
  /** The manifest chosen, or null before useManifest or syncPlan. */
  get scoped(): string | null {
    return this.scope;
  }

  get manifest(): string {
    if (this.scope === null) throw new StateError('no manifest chosen: call useManifest or syncPlan first');
    return this.scope;
  }

  event(type: EventType, jobKey: string | null, data?: Record<string, unknown>): void {
    appendEvent(this.db, this.clock.now(), type, { runId: this.runId, jobKey, manifest: this.scope }, data);
  }

  /** `fn` inside the caller's transaction when there is one, else in one of its own. */
  protected atomicallyNested<T>(fn: () => T): T {
    return this.db.inTransaction ? fn() : this.atomically(fn);
  }

  /**
   * Replaces the list of a job's output URLs, each at its place (`places`: by default its position
   * in the list; a job of items puts each file at its item's place). A link to the same file (same origin and path; a
   * re-signed query does not make another file, see same-output.ts) keeps what was downloaded
   * from it; a link to another file forgets the old path and checksum, so the output is fetched
   * again and never taken as done on the old record.
   */
  setOutputs(key: string, urls: readonly string[], places: readonly number[] = urls.map((_, i) => i)): void {
    const manifest = this.manifest;
    const keep = statement(this.db, 'SELECT idx, url FROM outputs WHERE manifest = ? AND job_key = ? ORDER BY idx').all(manifest, key) as { idx: number; url: string }[];
    // The same links as recorded (every download after the first look): nothing to write, no commit.
    if (keep.length === urls.length && keep.every((row, i) => row.idx === places[i] && row.url === urls[i])) return;
    this.atomicallyNested(() => {
      const upsert = statement(this.db, 
        `INSERT INTO outputs (manifest, job_key, idx, url) VALUES (?, ?, ?, ?)
         ON CONFLICT (manifest, job_key, idx) DO UPDATE SET url = excluded.url,
           path = CASE WHEN same_output(url, excluded.url) THEN path END,
           bytes = CASE WHEN same_output(url, excluded.url) THEN bytes END,
           sha256 = CASE WHEN same_output(url, excluded.url) THEN sha256 END,
           content_type = CASE WHEN same_output(url, excluded.url) THEN content_type END,
           downloaded_at = CASE WHEN same_output(url, excluded.url) THEN downloaded_at END,
           mtime_ns = CASE WHEN same_output(url, excluded.url) THEN mtime_ns END,
           stat_stamp = CASE WHEN same_output(url, excluded.url) THEN stat_stamp END`,
      );
      urls.forEach((url, i) => upsert.run(manifest, key, places[i], url));
      const drop = statement(this.db, 'DELETE FROM outputs WHERE manifest = ? AND job_key = ? AND idx = ?');
      const wanted = new Set(places);
      for (const row of keep) if (!wanted.has(row.idx)) drop.run(manifest, key, row.idx);
    });
  }

  recordDownload(key: string, idx: number, file: { path: string; bytes: number; sha256: string; contentType: string; statStamp: string }): void {
    statement(this.db, 
        `UPDATE outputs SET path = ?, bytes = ?, sha256 = ?, content_type = ?, downloaded_at = ?, stat_stamp = ?
         WHERE manifest = ? AND job_key = ? AND idx = ?`,
      )
      .run(file.path, file.bytes, file.sha256, file.contentType, this.clock.now(), file.statStamp, this.manifest, key, idx);
  }

  /** A recorded output was read in full and still matches its sha256: remember the stat stamp it has now. */
  recordVerified(key: string, idx: number, statStamp: string): void {
    statement(this.db, 'UPDATE outputs SET stat_stamp = ? WHERE manifest = ? AND job_key = ? AND idx = ?').run(statStamp, this.manifest, key, idx);
  }

  /** The manifest's recorded outputs whose file is at `path` (relative to the outputs folder). */
  outputsAtPath(path: string): { jobKey: string; idx: number }[] {
    return statement(this.db, 'SELECT job_key AS jobKey, idx FROM outputs WHERE manifest = ? AND path = ?').all(this.manifest, path) as { jobKey: string; idx: number }[];
  }

  /** A recorded output's file moved to `path` (null: it is gone), with its checksum kept; logged on the job. */
  moveOutput(key: string, idx: number, path: string | null, why: string): void {
    this.atomicallyNested(() => {
      const from = statement(this.db, 'SELECT path FROM outputs WHERE manifest = ? AND job_key = ? AND idx = ?', { pluck: true }).get(this.manifest, key, idx);
      statement(this.db, 'UPDATE outputs SET path = ?, stat_stamp = NULL WHERE manifest = ? AND job_key = ? AND idx = ?').run(path, this.manifest, key, idx);
      this.event('job:file-moved', key, { idx, from, to: path, why });
    });
  }

  outputs(key: string): OutputRow[] {
    const select = statement(this.db, `SELECT ${OUTPUT_COLUMNS} FROM outputs WHERE manifest = ? AND job_key = ? ORDER BY idx`, { raw: true });
    return (select.all(this.manifest, key) as unknown[][]).map(outputFromValues);
  }

  /** The outputs of the jobs `keys` names, by job, in one query through the (manifest, job) key (a run's start reads a page of jobs' so). */
  outputsOf(keys: readonly string[]): Map<string, OutputRow[]> {
    const select = statement(this.db, `SELECT ${OUTPUT_COLUMNS} FROM outputs WHERE manifest = ? AND job_key IN (SELECT value FROM json_each(?)) ORDER BY job_key, idx`, { raw: true });
    // Row by row: no page of arrays held at once.
    return byJob(select.iterate(this.manifest, JSON.stringify(keys)) as Iterable<unknown[]>, (values) => {
      const row = outputFromValues(values);
      return [row.jobKey, row];
    });
  }
}
