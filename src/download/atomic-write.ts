import { closeSync, fsync, mkdirSync, open, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { OutputFolders } from './output-folders.js';

/** Where `fill` writes the file's content, in order, as it comes; each write is done when it returns, so its bytes may be reused. */
export interface FileSink {
  write(data: string | Uint8Array): void;
}

/**
 * Writes a file so that its final name only ever holds complete, durable content: `fill` writes
 * into a temporary `.NAME.part` beside it; then the data is fsynced, the file renamed into place
 * and the folder fsynced (so the rename itself survives a power cut). If `fill` throws (a body cut
 * short, a failed check), the temporary file is removed and the error passed on. A leftover
 * `.NAME.part` of an earlier, interrupted write of the same file is replaced — found by its name,
 * never by listing the folder. (Two writers of one file never meet: one run per manifest holds
 * its lock, and a job writes each of its files once.) Downloads, inline text outputs and the
 * report all land through here.
 *
 * `folders`: the outputs folder the file is inside; no folder between it and the file may be a
 * symbolic link (see OutputFolders). The temporary file is created exclusively, so a link planted
 * at its name is never followed either.
 *
 * Why the calls are synchronous except creating the file and the two fsyncs: writing into the
 * page cache, renaming and closing take microseconds on a local disk, while handing each to libuv's
 * thread pool cost more than the call (a wakeup and two thread switches: about 0.1 ms of the main
 * thread each on the benchmark machine, a dozen per download). The fsyncs wait for the disk, and
 * creating a file can take milliseconds (see openExclusive), so those stay off the event loop.
 */
export async function writeAtomically<T>(path: string, fill: (file: FileSink) => Promise<T>, folders?: OutputFolders): Promise<T> {
  const dir = dirname(path);
  if (folders) folders.ensure(dir);
  else mkdirSync(dir, { recursive: true });
  const temp = join(dir, `.${basename(path)}.part`);
  const fd = await openExclusive(temp);
  let result: T;
  try {
    result = await fill({ write: (data) => writeAll(fd, data) });
    await fsyncFd(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  closeSync(fd);
  renameSync(temp, path);
  await syncFolder(dir);
  return result;
}

/**
 * Creates `temp` exclusively; a leftover of an interrupted earlier write (never in use) is removed
 * first. Why through the thread pool, unlike the other calls: creating a file can be slow, and
 * grows slower with what was deleted just before. On ext4 without a journal (the benchmark
 * machine's disk), a new file's inode is searched past every inode freed in the last ~40 s, one
 * by one: after 2,000 files were removed, each creation took about 0.75 ms (perf: __ext4_new_inode
 * was 10.6 % of a 2,000-job run's CPU, 0.8 % when the run started 50 s after the removal). A
 * nightly run into a folder just emptied of last night's outputs is in that case.
 */
async function openExclusive(temp: string): Promise<number> {
  try {
    return await openFile(temp);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    rmSync(temp, { force: true });
    return openFile(temp);
  }
}

const openFile = (path: string) => new Promise<number>((done, fail) => open(path, 'wx', (error, fd) => (error ? fail(error) : done(fd))));

function writeAll(fd: number, data: string | Uint8Array): void {
  let bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  while (bytes.length > 0) bytes = bytes.subarray(writeSync(fd, bytes));
}

const fsyncFd = (fd: number) => new Promise<void>((done, fail) => fsync(fd, (error) => (error ? fail(error) : done())));

/**
 * fsyncs a folder so the renames in it survive a power cut. Renames landing while a folder's fsync
 * is under way share the next one (a group commit): that fsync may have begun before them, so
 * they wait for the one after it, which covers every rename made before it starts.
 */
const folderSyncs = new Map<string, { running: Promise<void>; next: Promise<void> | null }>();

function syncFolder(dir: string): Promise<void> {
  const state = folderSyncs.get(dir);
  if (state) return (state.next ??= state.running.catch(() => undefined).then(() => startFolderSync(dir)));
  return startFolderSync(dir);
}

function startFolderSync(dir: string): Promise<void> {
  const running = (async () => {
    const fd = openSync(dir, 'r');
    try {
      await fsyncFd(fd);
    } finally {
      closeSync(fd);
    }
  })().finally(() => {
    const state = folderSyncs.get(dir);
    if (state?.running === running && state.next === null) folderSyncs.delete(dir);
  });
  const state = folderSyncs.get(dir);
  if (state) {
    state.running = running;
    state.next = null;
  } else folderSyncs.set(dir, { running, next: null });
  return running;
}
