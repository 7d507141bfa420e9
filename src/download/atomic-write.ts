import { lstat, mkdir, open, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { DownloadRefusedError } from '../errors.js';

/**
 * Writes a file so that its final name only ever holds complete, durable content: `fill` writes
 * into a temporary `.NAME.part` beside it; then the data is fsynced, the file renamed into place
 * and the folder fsynced (so the rename itself survives a power cut). If `fill` throws (a body cut
 * short, a failed check), the temporary file is removed and the error passed on. A leftover
 * `.NAME.part` of an earlier, interrupted write of the same file is removed first — by its name,
 * never by listing the folder: a folder of 10,000 outputs read before each of them cost a run
 * time quadratic in its outputs. (Two writers of one file never meet: one run per manifest holds
 * its lock, and a job writes each of its files once.) Downloads and inline text outputs both land
 * through here.
 *
 * `root` is the outputs folder: no folder between it and the file may be a symbolic link (see
 * realFoldersUnder). The temporary file is created exclusively, so a link planted at its name is
 * never followed either.
 */
export async function writeAtomically<T>(path: string, fill: (file: FileHandle) => Promise<T>, root?: string): Promise<T> {
  if (root === undefined) await mkdir(dirname(path), { recursive: true });
  else await realFoldersUnder(root, dirname(path));
  const temp = join(dirname(path), `.${basename(path)}.part`);
  await rm(temp, { force: true });
  const file = await open(temp, 'wx');
  let result: T;
  try {
    result = await fill(file);
    await file.sync();
  } catch (error) {
    await file.close().catch(() => undefined);
    await rm(temp, { force: true });
    throw error;
  }
  await file.close();
  await rename(temp, path);
  await syncDir(dirname(path));
  return result;
}

/**
 * Makes every folder from `root` (exclusive) down to `dir` (inclusive), refusing any that exists
 * as a symbolic link or a file. Why: with `ln -s ../victim out/shorts`, outputs would be written
 * into `victim/`, wherever it is; a folder inside the outputs folder is reelpipe's, so a link
 * there is a mistake or an attack, never a layout to honour. The outputs folder itself may be a
 * link (outputs kept on another disk is the operator's choice). A link swapped in between this
 * check and the write is not caught: that needs a local attacker racing the run.
 */
export async function realFoldersUnder(root: string, dir: string): Promise<void> {
  const top = resolve(root);
  await mkdir(top, { recursive: true });
  const rel = relative(top, resolve(dir));
  if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) throw new DownloadRefusedError(`${dir} is not inside the outputs folder ${top}`);
  let current = top;
  for (const part of rel === '' ? [] : rel.split(sep)) {
    current = join(current, part);
    const info = await lstat(current).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    if (info?.isSymbolicLink()) {
      throw new DownloadRefusedError(
        `refused to write through ${current}: it is a symbolic link inside the outputs folder ${top} ` +
          '(outputs are never written through a link, which could point anywhere); replace it with a real folder',
      );
    }
    if (info && !info.isDirectory()) throw new DownloadRefusedError(`cannot write into ${current}: it is a file, not a folder`);
    if (!info) await mkdir(current).catch((error: NodeJS.ErrnoException) => { if (error.code !== 'EEXIST') throw error; });
  }
}

/** fsyncs a directory so a rename in it survives a power cut. */
async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** The file's modification time in nanoseconds, as text (it does not fit a double). */
export async function mtimeNsOf(path: string): Promise<string> {
  return (await stat(path, { bigint: true })).mtimeNs.toString();
}
