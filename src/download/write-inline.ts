import { createHash } from 'node:crypto';
import { mkdir, open, rename } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { DownloadedFile } from './download-file.js';

/** Writes generated text (a text generation's answer) the same way a download lands: temp, fsync, rename. */
export async function writeInline(path: string, content: string): Promise<DownloadedFile> {
  await mkdir(dirname(path), { recursive: true });
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.part`);
  const data = Buffer.from(content, 'utf8');
  const file = await open(temp, 'w');
  try {
    await file.write(data);
    await file.sync();
  } finally {
    await file.close();
  }
  await rename(temp, path);
  return { path, bytes: data.length, sha256: createHash('sha256').update(data).digest('hex'), contentType: 'text/plain; charset=utf-8' };
}
