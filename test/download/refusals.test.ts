import { mkdirSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { DownloadError } from '../../src/errors.js';
import { DownloadTooLargeError, downloadSettingsFromEnv, fetchOutput, OutputFolders, outputPath, writeInline } from '../../src/download/index.js';
import { InvalidInputError } from '../../src/errors.js';
import { VIDEO, useMediaServer } from './fixtures/media-server.js';

/** What a download refuses to keep, and that nothing of it is left behind. */
const media = useMediaServer();

/** Everything under the outputs folder, hidden `.part` files included. */
const leftovers = () => readdirSync(media.dir, { recursive: true }).map(String).sort();

describe('the download ceiling', () => {
  test('a file announcing more than the ceiling is refused before a byte is written, and not tried again', async () => {
    media.handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': 50_000_000 });
      res.write(Buffer.alloc(65_536));
    };
    const error = await fetchOutput(`${media.base}/v/huge.mp4?sig=s3cret`, { ...media.fetchOpts(), maxBytes: 1_000_000 }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(DownloadTooLargeError);
    expect((error as Error).message).toBe(
      `${media.base}/v/huge.mp4?… announces 50000000 bytes, above the download ceiling of 1000000 bytes: not saved ` +
        '(raise it with REELPIPE_MAX_DOWNLOAD_BYTES if such a file is expected)',
    );
    expect(media.hits.get('/v/huge.mp4?sig=s3cret')).toBe(1);
    expect(leftovers()).toEqual([]);
  });

  test('an endless body without a length is cut off at the ceiling and its temporary file removed', async () => {
    let sent = 0;
    media.handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'video/mp4' });
      const more = () => {
        while (!res.destroyed && res.write(VIDEO)) sent += VIDEO.length;
        if (!res.destroyed) res.once('drain', more);
      };
      more();
    };
    const error = await fetchOutput(`${media.base}/v/endless.mp4`, { ...media.fetchOpts(), maxBytes: 1_000_000 }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(DownloadTooLargeError);
    expect((error as Error).message).toMatch(/endless\.mp4 ran past 1000000 bytes, above the download ceiling/);
    expect(leftovers()).toEqual(['shorts']);
    expect(sent).toBeLessThan(50_000_000);
  });

  test('a file within the ceiling is kept', async () => {
    const file = await fetchOutput(`${media.base}/v/a.mp4`, { ...media.fetchOpts(), maxBytes: VIDEO.length });
    expect(file.bytes).toBe(VIDEO.length);
  });

  test.each([
    [{ REELPIPE_MAX_DOWNLOAD_BYTES: '5000' }, { maxBytes: 5000 }],
    [{ REELPIPE_MAX_DOWNLOAD_BYTES: '4GiB' }, { maxBytes: 4 * 1024 ** 3 }],
    [{ REELPIPE_MAX_DOWNLOAD_BYTES: '512 mib' }, { maxBytes: 512 * 1024 ** 2 }],
    [{ REELPIPE_DOWNLOAD_ALLOW_HOSTS: ' cdn.internal , 10.0.0.5:8443,[::1]:9000' }, { allowHosts: ['cdn.internal', '10.0.0.5:8443', '[::1]:9000'] }],
    [{}, {}],
  ])('the environment %j gives %j', (env, expected) => expect(downloadSettingsFromEnv(env)).toEqual(expected));

  test.each([
    [{ REELPIPE_MAX_DOWNLOAD_BYTES: '2GB' }, /REELPIPE_MAX_DOWNLOAD_BYTES: '2GB' is not a size; give bytes, or a number with KiB, MiB or GiB/],
    [{ REELPIPE_MAX_DOWNLOAD_BYTES: '0' }, /REELPIPE_MAX_DOWNLOAD_BYTES: '0' is not a size/],
    [{ REELPIPE_DOWNLOAD_ALLOW_HOSTS: 'http://cdn.internal/' }, /REELPIPE_DOWNLOAD_ALLOW_HOSTS: 'http:\/\/cdn.internal\/' is not a host/],
  ])('a bad %j names the variable', (env, message) => {
    expect(() => downloadSettingsFromEnv(env)).toThrow(InvalidInputError);
    expect(() => downloadSettingsFromEnv(env)).toThrow(message);
  });
});

describe('symbolic links inside the outputs folder', () => {
  test('a step folder that is a link (ln -s ../victim out/shorts) is refused, naming it; nothing lands in its target', async () => {
    const victim = join(media.dir, '..', `${media.dir.split('/').pop()}-victim`);
    mkdirSync(victim);
    try {
      symlinkSync(victim, join(media.dir, 'shorts'));
      const error = await fetchOutput(`${media.base}/v/a.mp4`, media.fetchOpts()).catch((e: unknown) => e);

      expect(error).toBeInstanceOf(DownloadError);
      expect((error as Error).message).toContain(`refused to write through ${join(media.dir, 'shorts')}: it is a symbolic link inside the outputs folder`);
      expect(readdirSync(victim)).toEqual([]);
      expect(media.hits.get('/v/a.mp4')).toBe(1);
    } finally {
      rmSync(victim, { recursive: true, force: true });
    }
  });

  test('generated text is refused the same way', async () => {
    const elsewhere = join(media.dir, 'elsewhere');
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, join(media.dir, 'writer'));
    const path = outputPath(media.dir, { step: 'writer', name: 'row-1', ext: 'txt' });

    await expect(writeInline(path, 'an answer', new OutputFolders(media.dir))).rejects.toThrow(/writer: it is a symbolic link/);
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  test('the outputs folder itself may be a link (outputs kept on another disk)', async () => {
    const real = join(media.dir, 'disk');
    mkdirSync(real);
    symlinkSync(real, join(media.dir, 'out'));
    const file = await fetchOutput(`${media.base}/v/a.mp4`, { ...media.fetchOpts(), outputsDir: join(media.dir, 'out') });
    expect(file.bytes).toBe(VIDEO.length);
    expect(readdirSync(join(real, 'shorts'))).toEqual(['row-1.mp4']);
  });
});
