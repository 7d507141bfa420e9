import { crc32, deflateSync } from 'node:zlib';
import { SAMPLE_MP4_BASE64 } from '../fixtures/sample-mp4.js';

/** The MP4 every video output serves: small, valid, playable. */
export const SAMPLE_MP4 = Buffer.from(SAMPLE_MP4_BASE64, 'base64');

/** A PNG chunk: length, type, data, CRC of type and data. */
function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body) >>> 0);
  return Buffer.concat([length, body, crc]);
}

/**
 * A real RGB PNG: a diagonal gradient from `from` to `to`, so different images look different.
 * Made with node:zlib only.
 */
export function makePng(width: number, height: number, from: readonly number[], to: readonly number[]): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit depth, RGB, deflate, no filter method, no interlace
  const row = 1 + width * 3;
  const pixels = Buffer.alloc(row * height);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const t = (x + y) / Math.max(1, width + height - 2);
      const at = y * row + 1 + x * 3;
      for (let c = 0; c < 3; c += 1) pixels[at + c] = Math.round(from[c]! + (to[c]! - from[c]!) * t);
    }
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(pixels)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Two colours picked from a text, so the same name always gives the same picture. */
export function coloursFor(text: string): [number[], number[]] {
  const hash = crc32(text) >>> 0;
  const a = [hash & 0xff, (hash >>> 8) & 0xff, (hash >>> 16) & 0xff];
  return [a, a.map((c) => 255 - c)];
}
