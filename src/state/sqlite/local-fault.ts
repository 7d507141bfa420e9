/**
 * SQLite's codes for a fault of this machine rather than of the data or of our code: the disk is
 * full, an I/O error, a file that cannot be opened or written. (better-sqlite3 gives them as
 * `error.code`, with extended codes such as SQLITE_IOERR_WRITE.)
 */
const LOCAL = /^SQLITE_(FULL|IOERR|READONLY|CANTOPEN|NOMEM|PERM)/;
/** The same faults as Node's file system reports them. */
const LOCAL_ERRNO = new Set(['ENOSPC', 'EDQUOT', 'EROFS', 'EIO', 'EACCES', 'EPERM']);

/**
 * Whether `error` (or anything in its cause chain) is a local disk or database fault — also a
 * LocalFaultError already made (code LOCAL_FAULT): a PostgreSQL state that cannot be reached
 * within its bound (postgres/pg-faults.ts).
 */
export function isLocalFault(error: unknown): boolean {
  for (let cause = error, depth = 0; cause !== null && typeof cause === 'object' && depth < 8; cause = (cause as { cause?: unknown }).cause, depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && (LOCAL.test(code) || LOCAL_ERRNO.has(code) || code === 'LOCAL_FAULT')) return true;
  }
  return false;
}
