import type { JobRow, OutputRow } from '../job-row.js';
import { toJobRow, type RawJobRow } from '../sqlite/job-row.js';
import { PathFilter } from './pg-path-filter.js';

/**
 * What this store's own commits say a job is now, so the runner's reads of a job it has just
 * written cost no round trip. On PostgreSQL every read is one, and a job's life read its row four
 * times and its files once (docs/performance.md): more than its writes.
 *
 * Policy: rows are held only while this store holds the run lock of the manifest they belong to.
 * Every command that writes a manifest's jobs (run, resolve, forget) takes that lock first, so
 * under it no other process changes them: the row a committed wave left is the row until this
 * store writes the job again. Reads outside the lock (the readers, a store between locks) always
 * go to the database, and a read never fills what is held: only a commit does.
 *
 *   off ──takeLock(manifest)──▶ holding ──lock lost (beat false), released, broken──▶ off
 *
 * With several hosts on one run (issue 23) the lock no longer says "no other writer": each job's
 * lease does, and what is held of a job must go with its lease (dropped when the lease is lost).
 *
 * While holding: a wave's commit keeps every job row it locked, as it left it; a wave whose
 * transaction failed, or an operation that changes jobs some other way (a plan synced, an
 * interrupted intent recovered, a job forgotten, hooks retried), drops everything held. A job's
 * outputs, read with its links before a download, are held for the `outputs(key)` that follows,
 * unless a write named the job while they were read, and dropped by any write that names it.
 * And the paths the manifest's files may be at (pg-path-filter.ts): the database's, read once at
 * the first question, and every path this store records after — so "is another job's file where
 * this one goes?", asked before each download, is answered "no" without a round trip when no
 * recorded file can be there. A path is added before the write that records it is sent.
 *
 * Bounded: at most HELD_ROWS rows, the least recently written dropped first (a batch's jobs are
 * written a few at a time; what is not held is read from the database, as before). A job that
 * reached an end (downloaded, failed, rejected) is not held: the run seldom reads it again, and
 * the rows held stay those of the claimed window and the jobs in flight.
 */
export const HELD_ROWS = 4096;

const ENDS: ReadonlySet<string> = new Set(['downloaded', 'partly_failed', 'hook_failed', 'failed', 'rejected']);

export class HeldRows {
  private manifest: string | null = null;
  private readonly rows = new Map<string, JobRow>();
  private readonly files = new Map<string, OutputRow[]>();
  /** Jobs whose outputs are being read, no write having named them since the read began. */
  private readonly reading = new Set<string>();
  private paths: { filter: PathFilter; loaded: Promise<void> | null } = { filter: new PathFilter(), loaded: null };

  /** This store took `manifest`'s run lock: its commits' rows are the truth from now on. */
  hold(manifest: string): void {
    this.startOver(manifest);
  }

  /** Whether this store holds `manifest`'s run lock: no other process writes its jobs. */
  holds(manifest: string | null): boolean {
    return manifest !== null && manifest === this.manifest;
  }

  /** The lock is not ours any more (or `manifest`'s is not): nothing is held. */
  release(manifest?: string): void {
    if (manifest === undefined || this.holds(manifest)) this.startOver(null);
  }

  private startOver(manifest: string | null): void {
    this.drop();
    this.paths = { filter: new PathFilter(), loaded: null };
    this.manifest = manifest;
  }

  /** Everything held is forgotten (a failed transaction, or jobs changed outside a wave); still holding. */
  drop(): void {
    this.rows.clear();
    this.files.clear();
    this.reading.clear();
  }

  /** A committed wave's rows for `manifest`, as it left them; its `touched` jobs' held outputs dropped. */
  committed(manifest: string | null, rows: ReadonlyMap<string, RawJobRow>, touched: Iterable<string>): void {
    if (!this.holds(manifest)) return;
    for (const key of touched) this.touched(key);
    for (const [key, raw] of rows) {
      this.rows.delete(key);
      if (!ENDS.has(raw.status)) this.rows.set(key, toJobRow(raw));
    }
    for (const key of this.rows.keys()) {
      if (this.rows.size <= HELD_ROWS) break;
      this.rows.delete(key);
    }
  }

  /** A write that named `key` (a file moved, a wave's operation): its held outputs are stale. */
  touched(key: string): void {
    this.files.delete(key);
    this.reading.delete(key);
  }

  row(manifest: string, key: string): JobRow | undefined {
    return this.holds(manifest) ? this.rows.get(key) : undefined;
  }

  /** A read of `key`'s outputs begins: what it finds is held unless a write names the job before it ends. */
  readingFiles(key: string): void {
    this.reading.add(key);
  }

  /** Outputs read with a job's links, while the lock is ours; answered once, by `takeFiles`. */
  keepFiles(manifest: string, key: string, outputs: OutputRow[]): void {
    if (this.reading.delete(key) && this.holds(manifest)) this.files.set(key, outputs);
  }

  /** A file of the manifest is about to be recorded at `path`. */
  recording(path: string | null | undefined): void {
    if (path) this.paths.filter.add(path);
  }

  /**
   * Whether a recorded file of `manifest` may be at `path`: true (ask the database) unless the
   * lock is ours and neither the database's paths, read by `load` at the first question, nor any
   * this store recorded since can be it.
   */
  async mayHavePath(manifest: string, path: string, load: () => Promise<string[]>): Promise<boolean> {
    if (!this.holds(manifest)) return true;
    const paths = this.paths;
    paths.loaded ??= load().then(
      (found) => found.forEach((one) => paths.filter.add(one)),
      (error: unknown) => {
        paths.loaded = null;
        throw error;
      },
    );
    await paths.loaded;
    return !this.holds(manifest) || paths.filter.mayHave(path);
  }

  takeFiles(manifest: string, key: string): OutputRow[] | undefined {
    if (!this.holds(manifest)) return undefined;
    const held = this.files.get(key);
    this.files.delete(key);
    return held;
  }
}
