import { createHash } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';

/** What the state database recorded for a downloaded file. */
export interface RecordedFile {
  bytes: number;
  sha256: string;
  /** Its mtime (ns, as text) when its checksum was last written or verified; null before that was recorded. */
  mtimeNs: string | null;
}

/** Whether the file on disk is still the one recorded, and its mtime now (to record after a full check). */
export type FileCheck =
  | { intact: true; mtimeNs: string; rehashed: boolean }
  | { intact: false; why: string };

/**
 * Checks a recorded output on disk. The rule: a regular file whose size and mtime (to the
 * nanosecond) equal the recorded ones is trusted without being read; anything else is read in full
 * (streaming) and must match the recorded sha256.
 *
 * Why: a re-run of a finished 10,000-output manifest must not read every file again (it would take
 * minutes), yet a changed byte must not pass as intact. Writing a file sets its mtime, so a byte
 * flipped in place, a truncation or a file copied over it shows a new mtime and is re-hashed.
 * What it does not catch: a change that also restores the mtime on purpose (`touch -d`), or one
 * made within the same clock tick as the download on a filesystem with coarse timestamps.
 */
export async function verifyRecorded(path: string, recorded: RecordedFile): Promise<FileCheck> {
  // A stat is microseconds; through the thread pool it cost more than itself (see atomic-write.ts).
  const info = statSync(path, { bigint: true, throwIfNoEntry: false });
  if (!info?.isFile()) return { intact: false, why: `${path} is missing` };
  if (info.size !== BigInt(recorded.bytes)) return { intact: false, why: `${path} has ${info.size} bytes, not the ${recorded.bytes} downloaded` };
  const mtimeNs = info.mtimeNs.toString();
  if (mtimeNs === recorded.mtimeNs) return { intact: true, mtimeNs, rehashed: false };
  if ((await sha256Of(path)) !== recorded.sha256) return { intact: false, why: `${path} no longer matches its recorded sha256` };
  return { intact: true, mtimeNs, rehashed: true };
}

/** A file's sha256, read as a stream (a large file never sits in memory). */
export async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
