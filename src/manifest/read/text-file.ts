import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { count, MB } from '../syntax/limits.js';
import { decodeUtf8 } from './text-encoding.js';

/**
 * Reads a manifest or a data file as UTF-8 text, bounded: only a regular file is read (a
 * directory, a device such as /dev/zero or a named pipe is named as such, before a byte is read,
 * where reading would fail, never end or block), and never more than `maxBytes`.
 * A problem with the file as a whole has no line; an encoding problem has the line it shows on.
 */
export interface TextFileProblem {
  line?: number;
  column?: number;
  message: string;
}

export async function readTextFile(file: string, maxBytes: number, raise: string): Promise<{ text: string } | { problem: TextFileProblem }> {
  let handle: FileHandle;
  try {
    // O_NONBLOCK: opening a named pipe must not wait for a writer; a regular file ignores it.
    handle = await open(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { problem: { message: code === 'ENOENT' ? 'file not found' : `cannot read: ${(error as Error).message}` } };
  }
  try {
    const stat = await handle.stat();
    if (stat.isDirectory()) return { problem: { message: 'is a directory, not a file' } };
    if (!stat.isFile()) return { problem: { message: 'is not a regular file (a device, a pipe or a socket cannot be read as text)' } };
    const tooLarge = (bytes: number) => ({ problem: { message: `is ${count(bytes)} bytes${bytes > stat.size ? ' or more' : ''}, above the limit of ${size(maxBytes)}; ${raise}` } });
    if (stat.size > maxBytes) return tooLarge(stat.size);
    const bytes = await readAtMost(handle, stat.size, maxBytes);
    if (bytes === undefined) return tooLarge(maxBytes + 1);
    const decoded = decodeUtf8(bytes);
    return 'text' in decoded ? decoded : { problem: decoded.problem };
  } catch (error) {
    return { problem: { message: `cannot read: ${(error as Error).message}` } };
  } finally {
    await handle.close();
  }
}

/** The file's bytes, or undefined when it grew past `maxBytes` while being read. */
async function readAtMost(handle: FileHandle, expected: number, maxBytes: number): Promise<Buffer | undefined> {
  let buffer = Buffer.allocUnsafe(Math.min(expected, maxBytes) + 1);
  let length = 0;
  for (;;) {
    if (length === buffer.length) {
      if (length > maxBytes) return undefined;
      const larger = Buffer.allocUnsafe(Math.min(buffer.length * 2, maxBytes + 1));
      buffer.copy(larger, 0, 0, length);
      buffer = larger;
    }
    const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
    if (bytesRead === 0) return buffer.subarray(0, length);
    length += bytesRead;
  }
}

const size = (bytes: number) => (bytes >= MB ? `${(bytes / MB).toLocaleString('en-US', { maximumFractionDigits: 1 })} MB` : `${count(bytes)} bytes`);
