import { createHash } from 'node:crypto';
import { createReadStream, statSync, type BigIntStats } from 'node:fs';

/** What the state database recorded for a downloaded file. */
export interface RecordedFile {
  bytes: number;
  sha256: string;
  /** Its stat stamp (statStamp) when its checksum was last written or verified; null before one was recorded. */
  statStamp: string | null;
}

/** Whether the file on disk is still the one recorded, and its stat stamp now (to record after a full check). */
export type FileCheck =
  | { intact: true; statStamp: string; rehashed: boolean }
  | { intact: false; why: string };

/**
 * A file's stat stamp: `SIZE:MTIME_NS:CTIME_NS`, the times to the nanosecond (as text: they do not
 * fit a double). Taken right after the file's final rename (a rename changes the ctime), and
 * whenever its content is read in full and found intact.
 */
export function statStamp(info: BigIntStats): string {
  return `${info.size}:${info.mtimeNs}:${info.ctimeNs}`;
}

/** The stat stamp of the file at `path` now. */
export function statStampOf(path: string): string {
  return statStamp(statSync(path, { bigint: true }));
}

/**
 * Checks a recorded output on disk. The rule: a regular file whose stat stamp — size, mtime and
 * ctime, to the nanosecond — equals the recorded one is trusted without being read; anything else
 * is read in full (streaming) and must match the recorded sha256.
 *
 * Why: a re-run of a finished 10,000-output manifest must not read every file again (it would take
 * minutes), yet a changed byte must not pass as intact. Writing a file sets its mtime and its
 * ctime, so a byte flipped in place, a truncation or a file copied over it is re-hashed. Why the
 * ctime too: the mtime can be set back (`touch -d`, utimes, a tool restoring it); the ctime
 * cannot — the kernel sets it to now on every change to the file, setting the mtime included.
 * The price: a change of the file's owner or mode, or a rename, also re-hashes it once.
 * What it does not catch: a change made within the same clock tick as the stamp on a filesystem
 * with coarse timestamps, or someone setting the system clock back to forge a ctime.
 */
export async function verifyRecorded(path: string, recorded: RecordedFile): Promise<FileCheck> {
  const info = statOf(path);
  if (!info?.isFile()) return { intact: false, why: `${path} is missing` };
  if (info.size !== BigInt(recorded.bytes)) return { intact: false, why: `${path} has ${info.size} bytes, not the ${recorded.bytes} downloaded` };
  const stamp = statStamp(info);
  if (stamp === recorded.statStamp) return { intact: true, statStamp: stamp, rehashed: false };
  if ((await sha256Of(path)) !== recorded.sha256) return { intact: false, why: `${path} no longer matches its recorded sha256` };
  return { intact: true, statStamp: stamp, rehashed: true };
}

/** A file's sha256, read as a stream (a large file never sits in memory). */
export async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * Whether the file at `path` is trusted unread: a regular file whose stat stamp is the recorded one
 * (verifyRecorded's first rule). False means "not known intact" — verifyRecorded then decides.
 */
export function stampUnchanged(path: string, recorded: RecordedFile): boolean {
  const info = statOf(path);
  return recorded.statStamp !== null && info?.isFile() === true && statStamp(info) === recorded.statStamp;
}

// One stat per file; a stat is microseconds, and through the thread pool it cost more than itself (see atomic-write.ts).
const statOf = (path: string) => statSync(path, { bigint: true, throwIfNoEntry: false });
