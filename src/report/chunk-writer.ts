/** Bytes gathered before each write of a report file made of chunks. */
const BATCH_BYTES = 1 << 20;

/**
 * A report file's chunks gathered into writes of about 1 MB: a big report is never one string.
 * Why a buffer the chunks are encoded into: joining them into strings, then converting each to
 * bytes, allocated the file's size three times over (a 10,000-job report is 12 MB). Each chunk is
 * encoded on its own, so a chunk is whole text: it never ends inside a surrogate pair (the
 * report's writers give lines and whole JSON texts).
 *
 * `write` must be done with its bytes when it returns (a FileSink's is): the buffer is filled again.
 */
export class ChunkWriter {
  private readonly batch = Buffer.allocUnsafe(BATCH_BYTES);
  private used = 0;

  constructor(private readonly write: (data: string | Uint8Array) => void) {}

  text(chunk: string): void {
    // A UTF-16 unit takes at most 3 bytes in UTF-8: a chunk that might not fit goes after the batch, or alone.
    if (this.used + chunk.length * 3 > BATCH_BYTES) {
      this.flush();
      if (chunk.length * 3 > BATCH_BYTES) return this.write(chunk);
    }
    this.used += this.batch.write(chunk, this.used);
  }

  bytes(data: Uint8Array): void {
    if (this.used + data.length > BATCH_BYTES) {
      this.flush();
      if (data.length > BATCH_BYTES) return this.write(data);
    }
    this.batch.set(data, this.used);
    this.used += data.length;
  }

  /** Writes what is gathered: call it once the last chunk is in. */
  flush(): void {
    if (this.used > 0) this.write(this.batch.subarray(0, this.used));
    this.used = 0;
  }
}
