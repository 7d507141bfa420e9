import { closeSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { ChunkWriter } from './chunk-writer.js';

/** Bytes read back at a time. */
const BLOCK_BYTES = 1 << 20;

/**
 * A part of a report file written aside as the jobs come (`.NAME.jobs`, beside the file; a
 * leftover of a write cut short is overwritten by the next), and read back once what goes before
 * it in the file is known: the HTML's jobs' data (its head sums every job), results.csv's lines
 * (its header names every row's columns). Why a file, not memory: at 100,000 jobs each is 30 MB.
 */
export class ScratchFile {
  readonly writer: ChunkWriter;
  private readonly path: string;
  private readonly fd: number;

  constructor(of: string) {
    this.path = join(dirname(of), `.${basename(of)}.jobs`);
    this.fd = openSync(this.path, 'w+');
    this.writer = new ChunkWriter((data) => {
      let bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
      while (bytes.length > 0) bytes = bytes.subarray(writeSync(this.fd, bytes));
    });
  }

  /** What was written, from the start, a block at a time: each block is reused by the next, so use it before asking for that. */
  *blocks(): Generator<Buffer> {
    this.writer.flush();
    const block = Buffer.allocUnsafe(BLOCK_BYTES);
    for (let at = 0; ; ) {
      const read = readSync(this.fd, block, 0, BLOCK_BYTES, at);
      if (read === 0) return;
      at += read;
      yield block.subarray(0, read);
    }
  }

  remove(): void {
    closeSync(this.fd);
    rmSync(this.path, { force: true });
  }
}
