/**
 * Splits a byte stream into lines without ever holding more than `maxBytes` of one line: a line
 * past the bound is dropped as it arrives (only its end is looked for) and reported by
 * `onOverlong`. Feed chunks with `push`, then call `end`.
 */
export class BoundedLines {
  private parts: Buffer[] = [];
  private bytes = 0;
  private overlong = false;

  constructor(
    private readonly maxBytes: number,
    private readonly onLine: (text: string) => void,
    private readonly onOverlong: () => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10, start)) {
      this.keep(chunk.subarray(start, newline));
      this.flush();
      start = newline + 1;
    }
    this.keep(chunk.subarray(start));
  }

  /** The last line, when the stream did not end with a newline. */
  end(): void {
    if (this.bytes > 0 || this.overlong) this.flush();
  }

  private keep(part: Buffer): void {
    if (this.overlong || part.length === 0) return;
    if (this.bytes + part.length > this.maxBytes) {
      [this.parts, this.bytes, this.overlong] = [[], 0, true];
      return;
    }
    this.parts.push(part);
    this.bytes += part.length;
  }

  private flush(): void {
    if (this.overlong) this.onOverlong();
    else this.onLine(Buffer.concat(this.parts).toString('utf8'));
    [this.parts, this.bytes, this.overlong] = [[], 0, false];
  }
}
