import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { DownloadError } from '../../src/errors.js';
import {
  ExpiredUrlError,
  downloadFile,
  extensionFor,
  fetchOutput,
  guardedDispatcher,
  isPlausibleContentType,
  outputPath,
  sanitizeSegment,
  writeAtomically,
  writeInline,
  verifyRecorded,
  type OutputMedia,
} from '../../src/download/index.js';
import { VIDEO, serveVideo, sha, useMediaServer } from './fixtures/media-server.js';
import { freePort } from '../helpers/free-port.js';

const media = useMediaServer();
const fetchOpts = media.fetchOpts;

describe('inline text outputs', () => {
  test('land like downloads: complete, checksummed, and leftovers of a killed earlier write are removed', async () => {
    mkdirSync(join(media.dir, 'writer'), { recursive: true });
    writeFileSync(join(media.dir, 'writer', '.row-1.txt.part'), 'half of an old answ');
    const file = await writeInline(join(media.dir, 'writer', 'row-1.txt'), 'the whole answer');
    expect(file).toMatchObject({ bytes: 16, sha256: sha(Buffer.from('the whole answer')) });
    expect(readdirSync(join(media.dir, 'writer'))).toEqual(['row-1.txt']);
  });

  test('many written into one folder at once all land whole (their folder fsyncs are shared)', async () => {
    const texts = Array.from({ length: 40 }, (_, i) => `answer ${i} `.repeat(i + 1));
    const files = await Promise.all(texts.map((text, i) => writeInline(join(media.dir, 'many', `row-${i}.txt`), text)));
    expect(files.map((f) => f.bytes)).toEqual(texts.map((t) => Buffer.byteLength(t)));
    expect(readdirSync(join(media.dir, 'many')).sort()).toEqual(texts.map((_, i) => `row-${i}.txt`).sort());
    texts.forEach((text, i) => expect(readFileSync(join(media.dir, 'many', `row-${i}.txt`), 'utf8')).toBe(text));
  });

  test('a write that fails part-way leaves neither the final name nor a temporary file', async () => {
    await expect(writeAtomically(join(media.dir, 'x', 'a.txt'), async (f) => {
      f.write('partial');
      throw new Error('disk said no');
    })).rejects.toThrow('disk said no');
    expect(readdirSync(join(media.dir, 'x'))).toEqual([]);
  });
});

describe('downloading one file', () => {
  test('streams it into place with its checksum, leaving no temporary file', async () => {
    media.handler = serveVideo;
    const file = await fetchOutput(`${media.base}/v/a.mp4?sig=secret`, fetchOpts());
    expect(file).toMatchObject({ path: join(media.dir, 'shorts', 'row-1.mp4'), bytes: VIDEO.length, sha256: sha(VIDEO), contentType: 'video/mp4' });
    expect(readFileSync(file.path).equals(VIDEO)).toBe(true);
    expect(readdirSync(join(media.dir, 'shorts'))).toEqual(['row-1.mp4']);
    await expect(verifyRecorded(file.path, file)).resolves.toMatchObject({ intact: true, rehashed: false });
  });

  test('an error page served with 200 where a video was expected is refused', async () => {
    media.handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<h1>oops</h1>');
    };
    await expect(fetchOutput(`${media.base}/v/b.mp4`, { ...fetchOpts(), attempts: 2 })).rejects.toThrow(/not a plausible video file/);
    expect(readdirSync(media.dir)).toEqual([]);
  });

  test('an empty body is never kept', async () => {
    media.handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'video/mp4' });
      res.end();
    };
    await expect(fetchOutput(`${media.base}/v/c.mp4`, { ...fetchOpts(), attempts: 1 })).rejects.toThrow(/is empty/);
    expect(readdirSync(join(media.dir, 'shorts'))).toEqual([]);
  });

  test('a body cut mid-way leaves no final file and is tried again', async () => {
    media.handler = (_req, res, hit) => {
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': VIDEO.length });
      if (hit === 1) {
        res.write(VIDEO.subarray(0, 1000));
        setTimeout(() => res.socket?.destroy(), 5);
      } else res.end(VIDEO);
    };
    const file = await fetchOutput(`${media.base}/v/cut.mp4`, fetchOpts());
    expect(media.hits.get('/v/cut.mp4')).toBe(2);
    expect(file.sha256).toBe(sha(VIDEO));
    expect(readdirSync(join(media.dir, 'shorts'))).toEqual(['row-1.mp4']);
  });

  test('an expired link is refreshed by re-reading the job, not retried as is', async () => {
    media.handler = (req, res) => {
      if (req.url?.startsWith('/old')) {
        res.writeHead(410);
        res.end();
      } else serveVideo(req, res, 1);
    };
    let refreshed = 0;
    const file = await fetchOutput(`${media.base}/old/a.mp4`, fetchOpts(async () => (refreshed++, `${media.base}/new/a.mp4`)));
    expect(refreshed).toBe(1);
    expect(media.hits.get('/old/a.mp4')).toBe(1);
    expect(file.bytes).toBe(VIDEO.length);
  });

  test('a link to an address nobody listens at any more (a restarted sandbox\'s old port) is refreshed once', async () => {
    media.handler = serveVideo;
    const port = await freePort();
    let refreshed = 0;
    const file = await fetchOutput(`http://127.0.0.1:${port}/v/a.mp4`, fetchOpts(async () => (refreshed++, `${media.base}/v/a.mp4`)));
    expect(refreshed).toBe(1);
    expect(file.sha256).toBe(sha(VIDEO));
  });

  test('an expired link the job no longer offers is a DownloadError that hides the query', async () => {
    media.handler = (_req, res) => {
      res.writeHead(403);
      res.end();
    };
    const error = await fetchOutput(`${media.base}/gone.mp4?token=abc`, fetchOpts()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DownloadError);
    expect(String(error)).not.toContain('abc');
    const dispatcher = guardedDispatcher({ serviceUrl: media.base });
    await expect(downloadFile(`${media.base}/gone.mp4`, { media: 'video', target: () => join(media.dir, 'x.mp4'), dispatcher })).rejects.toBeInstanceOf(ExpiredUrlError);
  });

  test('a leftover .part file of an interrupted download is removed by the next one', async () => {
    media.handler = serveVideo;
    mkdirSync(join(media.dir, 'shorts'));
    writeFileSync(join(media.dir, 'shorts', '.row-1.mp4.part'), 'half');
    await fetchOutput(`${media.base}/v/a.mp4`, fetchOpts());
    expect(readdirSync(join(media.dir, 'shorts'))).toEqual(['row-1.mp4']);
  });
});

describe('output paths', () => {
  test.each([
    ['plain', 'row-1', 'row-1'],
    ['spaces and accents', 'Café crème 01', 'Cafe-cre-me-01'],
    ['parent traversal', '../../etc/passwd', 'etc-passwd'],
    ['hidden file', '.bashrc', 'bashrc'],
    ['only dots', '..', 'output'],
    ['slashes', 'a/b\\c', 'a-b-c'],
    ['empty', '', 'output'],
  ])('%s: %j becomes %j', (_case, raw, safe) => expect(sanitizeSegment(raw)).toBe(safe));

  test('a hostile step, name or extension stays inside the outputs folder', () => {
    const path = outputPath('/out', { step: '../..', name: '../x', suffix: '/../y', ext: '../sh' });
    expect(path.startsWith('/out/')).toBe(true);
    expect(path).toBe('/out/step/x-y.sh');
  });

  test('several files of one job are told apart by suffix', () => {
    expect(outputPath('/out', { step: 'ads', name: 'promo', suffix: 'style-3', ext: 'html' })).toBe('/out/ads/promo-style-3.html');
  });
});

describe('content checks', () => {
  test.each<[OutputMedia, string | undefined, boolean]>([
    ['video', 'video/mp4', true],
    ['video', 'application/octet-stream', true],
    ['video', undefined, true],
    ['video', 'text/html; charset=utf-8', false],
    ['video', 'application/json', false],
    ['html', 'text/html; charset=utf-8', true],
    ['html', 'video/mp4', false],
    ['asset', 'image/png', true],
    ['audio', 'audio/mpeg', true],
    ['image', 'text/plain', false],
  ])('%s accepts %s: %s', (media, type, ok) => expect(isPlausibleContentType(media, type)).toBe(ok));

  test.each<[OutputMedia, string, string | undefined, string]>([
    ['video', 'https://cdn/x/v.mp4?sig=1', 'application/octet-stream', 'mp4'],
    ['video', 'https://cdn/x/v', 'video/webm', 'webm'],
    ['html', 'https://cdn/ad/123', 'text/html; charset=utf-8', 'html'],
    ['asset', 'https://cdn/a/file', undefined, 'bin'],
    ['image', 'https://cdn/a/file.JPG', undefined, 'jpg'],
  ])('%s from %s (%s) gets .%s', (media, url, type, ext) => expect(extensionFor(media, url, type)).toBe(ext));
});
