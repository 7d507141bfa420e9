/**
 * A set of strings held as one UTF-8 buffer and typed arrays: each distinct string has an id (0,
 * 1, 2… in the order first added), found again by its text. Why not a Map: a Map of a million
 * short strings holds a string object and a table entry each (~100 bytes); this holds the bytes
 * of the text, an offset and two slots of an open-addressed table (~text + 12 bytes), and nothing
 * the garbage collector has to visit (issue 24: a plan's keys and output names in ≤ 64 bytes a job).
 */
export class PackedStrings {
  private bytes: Buffer = Buffer.allocUnsafe(1 << 12);
  private used = 0;
  /** starts[id] is where string id begins; starts[size] is where the next one will. */
  private starts = new Uint32Array(1 << 8);
  /** Open addressing by hash: each slot holds id + 1, 0 when empty. */
  private slots = new Int32Array(1 << 9);
  private count = 0;
  /** False once `trim(false)` let the table go: `find` and `add` rebuild it first. */
  private searchable = true;

  /** How many distinct strings. */
  get size(): number {
    return this.count;
  }

  /** The id of `text`, added if it is new. */
  add(text: string): number {
    const found = this.find(text);
    if (found >= 0) return found;
    if ((this.count + 1) * 2 > this.slots.length) this.rehash(this.slots.length * 2);
    const length = Buffer.byteLength(text);
    if (this.used + length > this.bytes.length) this.bytes = grown(this.bytes, this.used + length);
    this.bytes.write(text, this.used);
    if (this.count + 2 > this.starts.length) this.starts = grownArray(this.starts, this.count + 2);
    this.used += length;
    const id = this.count++;
    this.starts[this.count] = this.used;
    this.place(id, hashOf(text));
    return id;
  }

  /** The id of `text`, or -1 when it was never added. */
  find(text: string): number {
    if (!this.searchable) {
      this.searchable = true;
      this.rehash(smallestTable(this.count));
    }
    const mask = this.slots.length - 1;
    for (let slot = hashOf(text) & mask; ; slot = (slot + 1) & mask) {
      const entry = this.slots[slot] as number;
      if (entry === 0) return -1;
      if (this.equals(entry - 1, text)) return entry - 1;
    }
  }

  /** String `id`'s text. */
  get(id: number): string {
    return this.bytes.toString('utf8', this.starts[id], this.starts[id + 1]);
  }

  /**
   * Lets go of the room kept for growth; `lookup: false` also of the table `find` reads (then
   * only `get` answers). Adding after this works, and grows again.
   */
  trim(lookup: boolean): void {
    this.bytes = Buffer.from(this.bytes.subarray(0, this.used));
    this.starts = this.starts.slice(0, this.count + 1);
    if (!lookup) this.slots = new Int32Array(0);
    else if (this.slots.length > 4 * (this.count + 1)) this.rehash(smallestTable(this.count));
    this.searchable = lookup;
  }

  /** Bytes held, for the benchmarks' accounting. */
  get byteSize(): number {
    return this.bytes.length + this.starts.byteLength + this.slots.byteLength;
  }

  private equals(id: number, text: string): boolean {
    const [start, end] = [this.starts[id] as number, this.starts[id + 1] as number];
    // Most strings here are ASCII: compared a character at a time without decoding; any other decoded.
    if (end - start === text.length) {
      let ascii = true;
      for (let i = 0; i < text.length; i++) {
        const byte = this.bytes[start + i] as number;
        if (byte >= 0x80) {
          ascii = false;
          break;
        }
        if (byte !== text.charCodeAt(i)) return false;
      }
      if (ascii) return true;
    }
    return this.bytes.toString('utf8', start, end) === text;
  }

  private place(id: number, hash: number): void {
    const mask = this.slots.length - 1;
    let slot = hash & mask;
    while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
    this.slots[slot] = id + 1;
  }

  private rehash(size: number): void {
    this.slots = new Int32Array(size);
    for (let id = 0; id < this.count; id++) this.place(id, hashOf(this.get(id)));
  }
}

/** The smallest table (a power of two) that holds `count` strings at most half full. */
function smallestTable(count: number): number {
  let size = 16;
  while (size < 2 * (count + 1)) size *= 2;
  return size;
}

/** FNV-1a over the string's UTF-16 code units. */
function hashOf(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

function grown(bytes: Buffer, needed: number): Buffer {
  const larger = Buffer.allocUnsafe(Math.max(needed, bytes.length * 2));
  bytes.copy(larger);
  return larger;
}

/** A typed array of at least `needed` elements, its contents kept. */
export function grownArray<T extends Uint32Array | Uint16Array | Int32Array | Float64Array | Uint8Array>(array: T, needed: number): T {
  const Kind = array.constructor as new (n: number) => T;
  const larger = new Kind(Math.max(needed, array.length * 2));
  larger.set(array);
  return larger;
}
