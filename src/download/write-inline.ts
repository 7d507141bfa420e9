import { createHash } from 'node:crypto';
import { writeAtomically } from './atomic-write.js';
import { statStampOf } from './verify-file.js';
import type { OutputFolders } from './output-folders.js';
import type { DownloadedFile } from './download-file.js';

/**
 * Writes generated text (a text generation's answer) the way a download lands: see writeAtomically
 * (`root`, the outputs folder, is checked for symbolic links the same way).
 */
export async function writeInline(path: string, content: string, root?: OutputFolders): Promise<DownloadedFile> {
  const data = Buffer.from(content, 'utf8');
  await writeAtomically(path, async (file) => file.write(data), root);
  return {
    path,
    bytes: data.length,
    sha256: createHash('sha256').update(data).digest('hex'),
    contentType: 'text/plain; charset=utf-8',
    // After the rename into place: see verify-file.ts.
    statStamp: statStampOf(path),
  };
}
