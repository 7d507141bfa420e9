/**
 * The paths a manifest's recorded files may be at, as a Bloom filter: `mayHave` false means no
 * recorded file is there, so the question need not go to the database (pg-held-rows.ts says when
 * that holds). Never a false "no"; a false "yes" (about 1 in 400 at capacity) only costs the read
 * it would have cost anyway. Paths are only ever added: a path that stops being recorded still
 * says "yes".
 *
 * Memory is flat in the batch's strings: 16 bits a path, however long. It grows by adding a filter
 * twice the size of the last one when that one is full (a scalable Bloom filter), so no count has
 * to be known at the start.
 */

const BITS_PER_PATH = 16;
const HASHES = 4;
const FIRST_CAPACITY = 4096;

interface Layer {
  bits: Uint32Array;
  /** How many bits it has, a power of two. */
  size: number;
  capacity: number;
  count: number;
}

export class PathFilter {
  private readonly layers: Layer[] = [];

  add(path: string): void {
    const last = this.layers.at(-1);
    const layer = !last || last.count >= last.capacity ? this.grow(last ? last.capacity * 2 : FIRST_CAPACITY) : last;
    const [h1, h2] = hashes(path);
    for (let i = 0; i < HASHES; i++) {
      const bit = (h1 + i * h2) & (layer.size - 1);
      layer.bits[bit >>> 5]! |= 1 << (bit & 31);
    }
    layer.count++;
  }

  mayHave(path: string): boolean {
    const [h1, h2] = hashes(path);
    return this.layers.some((layer) => {
      for (let i = 0; i < HASHES; i++) {
        const bit = (h1 + i * h2) & (layer.size - 1);
        if ((layer.bits[bit >>> 5]! & (1 << (bit & 31))) === 0) return false;
      }
      return true;
    });
  }

  private grow(capacity: number): Layer {
    const size = 2 ** Math.ceil(Math.log2(capacity * BITS_PER_PATH));
    const layer = { bits: new Uint32Array(size / 32), size, capacity, count: 0 };
    this.layers.push(layer);
    return layer;
  }
}

/** Two independent 32-bit FNV-1a hashes of `text` (double hashing makes the filter's k from them). */
function hashes(text: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  // Odd, so that stepping by it visits distinct bits.
  return [a >>> 0, (b >>> 0) | 1];
}
