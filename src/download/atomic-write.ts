import { mkdir, open, readdir, rename, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Writes a file so that its final name only ever holds complete, durable content: `fill` writes
 * into a temporary `.NAME.PID.part` beside it; then the data is fsynced, the file renamed into
 * place and the folder fsynced (so the rename itself survives a power cut). If `fill` throws
 * (a body cut short, a failed check), the temporary file is removed and the error passed on.
 * Leftover `.part` files of earlier, interrupted writes of the same name are removed first.
 * Downloads and inline text outputs both land through here.
 */
export async function writeAtomically<T>(path: string, fill: (file: FileHandle) => Promise<T>): Promise<T> {
  await mkdir(dirname(path), { recursive: true });
  await removeStaleParts(path);
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.part`);
  const file = await open(temp, 'w');
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

/** Removes leftovers of earlier, interrupted writes of the same file. */
async function removeStaleParts(path: string): Promise<void> {
  const prefix = `.${basename(path)}.`;
  const names = await readdir(dirname(path)).catch(() => [] as string[]);
  await Promise.all(
    names.filter((n) => n.startsWith(prefix) && n.endsWith('.part')).map((n) => rm(join(dirname(path), n), { force: true })),
  );
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
