import Database from 'better-sqlite3';
import { LockedError } from '../../errors.js';

/**
 * One writer per journal. Two sandboxes appending to one journal interleave their operations,
 * and every later replay then disagrees with the balance the lines record (two `run --sandbox`
 * of different manifests on one state share `state/sandbox-service.jsonl`).
 *
 * Policy: the second process is refused at once (LockedError, exit 75), not made to wait. Why:
 * the holder may be a run tracking jobs for hours, or a `reelpipe sandbox` serving until stopped;
 * a wait of unknown length is a hang, and exit 75 already means "another run holds the lock,
 * try again later" to cron and to operators.
 *
 * How: the lock is an exclusive lock on a small SQLite file beside the journal (`FILE.lock`),
 * taken with `locking_mode = EXCLUSIVE` and held until the connection closes. The operating
 * system releases it when the holder dies, however it dies (kill -9, power cut of a container),
 * so there is no stale lock to detect: no pid to check, no heartbeat, nothing that pid reuse or
 * pid namespaces can fool. The file itself stays: removing it could let two processes lock two
 * different files of the same name.
 */
export class JournalLock {
  private constructor(private readonly db: Database.Database) {}

  /** Takes the lock on `journalFile`, or throws LockedError naming it when another process holds it. */
  static take(journalFile: string): JournalLock {
    const path = `${journalFile}.lock`;
    const db = new Database(path, { timeout: 0 });
    try {
      db.pragma('locking_mode = EXCLUSIVE');
      // The first write takes the exclusive lock; in this locking mode it is kept after COMMIT.
      db.exec('BEGIN EXCLUSIVE; CREATE TABLE IF NOT EXISTS lock (one INTEGER); COMMIT');
    } catch (error) {
      db.close();
      if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
      throw new LockedError(
        `the sandbox journal ${journalFile} is in use by another process (another \`reelpipe run --sandbox\` on the same ` +
          'state, or a `reelpipe sandbox --journal` on it): one sandbox writes a journal at a time. ' +
          'Run again once it has finished, or give this run its own --state.',
      );
    }
    return new JournalLock(db);
  }

  release(): void {
    if (this.db.open) this.db.close();
  }
}
