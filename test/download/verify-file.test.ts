import { readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { statStampOf, verifyRecorded } from '../../src/download/index.js';
import { VIDEO, sha, useMediaServer } from './fixtures/media-server.js';

/**
 * A recorded output is trusted while its stat stamp (size, mtime, ctime) is the one recorded with
 * its checksum; anything else is read in full and must match the sha256.
 */
const media = useMediaServer();

function recorded(): { path: string; bytes: number; sha256: string; statStamp: string } {
  const path = join(media.dir, 'row-1.mp4');
  writeFileSync(path, VIDEO);
  return { path, bytes: VIDEO.length, sha256: sha(VIDEO), statStamp: statStampOf(path) };
}

/** Flips one byte in place: same size, new content, new mtime. */
function flipByte(path: string): void {
  const data = readFileSync(path);
  data[1000] = data[1000]! ^ 0xff;
  writeFileSync(path, data);
}

/**
 * Returns once the kernel's clock for file times has moved past `path`'s ctime: a change within
 * the same tick (a few ms on some kernels) would carry the same ctime. Watches a scratch file's
 * ctime move; no fixed sleep.
 */
function afterFileClockTick(path: string): void {
  const stamped = statSync(path, { bigint: true }).ctimeNs;
  const probe = `${path}.tick`;
  writeFileSync(probe, '');
  while (statSync(probe, { bigint: true }).ctimeNs <= stamped) utimesSync(probe, new Date(), new Date());
  rmSync(probe);
}

describe('verifying a recorded output', () => {
  test('unchanged: trusted from its stat stamp, without being read', async () => {
    const file = recorded();
    await expect(verifyRecorded(file.path, file)).resolves.toEqual({ intact: true, statStamp: file.statStamp, rehashed: false });
  });

  test('one byte flipped in place (same size): caught, because writing changed the mtime', async () => {
    const file = recorded();
    flipByte(file.path);
    expect(statSync(file.path).size).toBe(file.bytes);

    await expect(verifyRecorded(file.path, file)).resolves.toEqual({ intact: false, why: `${file.path} no longer matches its recorded sha256` });
  });

  test('touched but unchanged: read in full, intact, with its new stat stamp to record', async () => {
    const file = recorded();
    utimesSync(file.path, new Date(Date.UTC(2030, 0, 1)), new Date(Date.UTC(2030, 0, 1)));
    const check = await verifyRecorded(file.path, file);

    expect(check).toMatchObject({ intact: true, rehashed: true });
    expect((check as { statStamp: string }).statStamp).not.toBe(file.statStamp);
  });

  test('one byte flipped, then its mtime put back (touch -d): caught, because the ctime moved', async () => {
    const path = join(media.dir, 'row-1.mp4');
    writeFileSync(path, VIDEO);
    // A whole second, so putting it back restores the stamped mtime exactly (to the nanosecond).
    const when = new Date(Date.UTC(2030, 0, 1));
    utimesSync(path, when, when);
    const file = { path, bytes: VIDEO.length, sha256: sha(VIDEO), statStamp: statStampOf(path) };
    afterFileClockTick(path);
    flipByte(path);
    utimesSync(path, when, when);
    expect(statSync(path, { bigint: true }).mtimeNs).toBe(BigInt(when.getTime()) * 1_000_000n);

    await expect(verifyRecorded(path, file)).resolves.toEqual({ intact: false, why: `${path} no longer matches its recorded sha256` });
  });

  test('recorded before stat stamps were kept (null): read in full once', async () => {
    const file = recorded();
    await expect(verifyRecorded(file.path, { ...file, statStamp: null })).resolves.toMatchObject({ intact: true, rehashed: true });
  });

  test.each([
    ['missing', (path: string) => rmSync(path), /is missing/],
    ['truncated', (path: string) => writeFileSync(path, VIDEO.subarray(1)), /has 65535 bytes, not the 65536 downloaded/],
  ])('%s: not intact, saying why', async (_name, damage, why) => {
    const file = recorded();
    damage(file.path);
    const check = await verifyRecorded(file.path, file);
    expect(check.intact).toBe(false);
    expect((check as { why: string }).why).toMatch(why);
  });

});
