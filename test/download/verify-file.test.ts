import { readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { mtimeNsOf, verifyRecorded } from '../../src/download/index.js';
import { VIDEO, sha, useMediaServer } from './fixtures/media-server.js';

/**
 * A recorded output is trusted while its size and mtime are the ones recorded with its checksum;
 * anything else is read in full and must match the sha256.
 */
const media = useMediaServer();

async function recorded(): Promise<{ path: string; bytes: number; sha256: string; mtimeNs: string }> {
  const path = join(media.dir, 'row-1.mp4');
  writeFileSync(path, VIDEO);
  return { path, bytes: VIDEO.length, sha256: sha(VIDEO), mtimeNs: await mtimeNsOf(path) };
}

/** Flips one byte in place: same size, new content, new mtime. */
function flipByte(path: string): void {
  const data = readFileSync(path);
  data[1000] = data[1000]! ^ 0xff;
  writeFileSync(path, data);
}

describe('verifying a recorded output', () => {
  test('unchanged: trusted from its size and mtime, without being read', async () => {
    const file = await recorded();
    await expect(verifyRecorded(file.path, file)).resolves.toEqual({ intact: true, mtimeNs: file.mtimeNs, rehashed: false });
  });

  test('one byte flipped in place (same size): caught, because writing changed the mtime', async () => {
    const file = await recorded();
    flipByte(file.path);
    expect(statSync(file.path).size).toBe(file.bytes);

    await expect(verifyRecorded(file.path, file)).resolves.toEqual({ intact: false, why: `${file.path} no longer matches its recorded sha256` });
  });

  test('touched but unchanged: read in full, intact, with its new mtime to record', async () => {
    const file = await recorded();
    utimesSync(file.path, new Date(Date.UTC(2030, 0, 1)), new Date(Date.UTC(2030, 0, 1)));
    const check = await verifyRecorded(file.path, file);

    expect(check).toMatchObject({ intact: true, rehashed: true });
    expect((check as { mtimeNs: string }).mtimeNs).not.toBe(file.mtimeNs);
  });

  test('recorded before mtimes were kept (null): read in full once', async () => {
    const file = await recorded();
    await expect(verifyRecorded(file.path, { ...file, mtimeNs: null })).resolves.toMatchObject({ intact: true, rehashed: true });
  });

  test.each([
    ['missing', (path: string) => rmSync(path), /is missing/],
    ['truncated', (path: string) => writeFileSync(path, VIDEO.subarray(1)), /has 65535 bytes, not the 65536 downloaded/],
  ])('%s: not intact, saying why', async (_name, damage, why) => {
    const file = await recorded();
    damage(file.path);
    const check = await verifyRecorded(file.path, file);
    expect(check.intact).toBe(false);
    expect((check as { why: string }).why).toMatch(why);
  });

});
