import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { DownloadError } from '../../src/errors.js';
import {
  ExpiredUrlError,
  downloadFile,
  extensionFor,
  fetchOutput,
  fileMatches,
  isPlausibleContentType,
  outputPath,
  sanitizeSegment,
  writeAtomically,
  writeInline,
  type OutputMedia,
} from '../../src/download/index.js';

const VIDEO = Buffer.alloc(64 * 1024, 7);
const sha = (buf: Buffer) => createHash('sha256').update(buf).digest('hex');

type Handler = (req: IncomingMessage, res: ServerResponse, hit: number) => void;
let server: Server;
let base: string;
let handler: Handler;
const hits = new Map<string, number>();

beforeAll(async () => {
  server = createServer((req, res) => {
    const n = (hits.get(req.url ?? '') ?? 0) + 1;
    hits.set(req.url ?? '', n);
    handler(req, res, n);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'reelpipe-dl-'));
  hits.clear();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const serveVideo: Handler = (_req, res) => {
  res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': VIDEO.length });
  res.end(VIDEO);
};
const noSleep = async () => undefined;
const fetchOpts = (refresh: () => Promise<string | undefined> = async () => undefined) => ({
  outputsDir: dir,
  name: { step: 'shorts', name: 'row-1' },
  media: 'video' as const,
  refresh,
  sleep: noSleep,
});

describe('inline text outputs', () => {
  test('land like downloads: complete, checksummed, and leftovers of a killed earlier write are removed', async () => {
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(dir, 'writer'), { recursive: true });
    writeFileSync(join(dir, 'writer', '.row-1.txt.4242.part'), 'half of an old answ');
    const file = await writeInline(join(dir, 'writer', 'row-1.txt'), 'the whole answer');
    expect(file).toMatchObject({ bytes: 16, sha256: sha(Buffer.from('the whole answer')) });
    expect(readdirSync(join(dir, 'writer'))).toEqual(['row-1.txt']);
  });

  test('a write that fails part-way leaves neither the final name nor a temporary file', async () => {
    await expect(writeAtomically(join(dir, 'x', 'a.txt'), async (f) => {
      await f.write('partial');
      throw new Error('disk said no');
    })).rejects.toThrow('disk said no');
    expect(readdirSync(join(dir, 'x'))).toEqual([]);
  });
});

describe('downloading one file', () => {
  test('streams it into place with its checksum, leaving no temporary file', async () => {
    handler = serveVideo;
    const file = await fetchOutput(`${base}/v/a.mp4?sig=secret`, fetchOpts());
    expect(file).toMatchObject({ path: join(dir, 'shorts', 'row-1.mp4'), bytes: VIDEO.length, sha256: sha(VIDEO), contentType: 'video/mp4' });
    expect(readFileSync(file.path).equals(VIDEO)).toBe(true);
    expect(readdirSync(join(dir, 'shorts'))).toEqual(['row-1.mp4']);
    await expect(fileMatches(file.path, file.bytes, file.sha256, true)).resolves.toBe(true);
  });

  test('an error page served with 200 where a video was expected is refused', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<h1>oops</h1>');
    };
    await expect(fetchOutput(`${base}/v/b.mp4`, { ...fetchOpts(), attempts: 2 })).rejects.toThrow(/not a plausible video file/);
    expect(readdirSync(dir)).toEqual([]);
  });

  test('an empty body is never kept', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'video/mp4' });
      res.end();
    };
    await expect(fetchOutput(`${base}/v/c.mp4`, { ...fetchOpts(), attempts: 1 })).rejects.toThrow(/is empty/);
    expect(readdirSync(join(dir, 'shorts'))).toEqual([]);
  });

  test('a body cut mid-way leaves no final file and is tried again', async () => {
    handler = (_req, res, hit) => {
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': VIDEO.length });
      if (hit === 1) {
        res.write(VIDEO.subarray(0, 1000));
        setTimeout(() => res.socket?.destroy(), 5);
      } else res.end(VIDEO);
    };
    const file = await fetchOutput(`${base}/v/cut.mp4`, fetchOpts());
    expect(hits.get('/v/cut.mp4')).toBe(2);
    expect(file.sha256).toBe(sha(VIDEO));
    expect(readdirSync(join(dir, 'shorts'))).toEqual(['row-1.mp4']);
  });

  test('an expired link is refreshed by re-reading the job, not retried as is', async () => {
    handler = (req, res) => {
      if (req.url?.startsWith('/old')) {
        res.writeHead(410);
        res.end();
      } else serveVideo(req, res, 1);
    };
    let refreshed = 0;
    const file = await fetchOutput(`${base}/old/a.mp4`, fetchOpts(async () => (refreshed++, `${base}/new/a.mp4`)));
    expect(refreshed).toBe(1);
    expect(hits.get('/old/a.mp4')).toBe(1);
    expect(file.bytes).toBe(VIDEO.length);
  });

  test('a link to an address nobody listens at any more (a restarted sandbox\'s old port) is refreshed once', async () => {
    handler = serveVideo;
    const { createServer } = await import('node:net');
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as { port: number };
    await new Promise((resolve) => probe.close(resolve));
    let refreshed = 0;
    const file = await fetchOutput(`http://127.0.0.1:${port}/v/a.mp4`, fetchOpts(async () => (refreshed++, `${base}/v/a.mp4`)));
    expect(refreshed).toBe(1);
    expect(file.sha256).toBe(sha(VIDEO));
  });

  test('an expired link the job no longer offers is a DownloadError that hides the query', async () => {
    handler = (_req, res) => {
      res.writeHead(403);
      res.end();
    };
    const error = await fetchOutput(`${base}/gone.mp4?token=abc`, fetchOpts()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DownloadError);
    expect(String(error)).not.toContain('abc');
    await expect(downloadFile(`${base}/gone.mp4`, { media: 'video', target: () => join(dir, 'x.mp4') })).rejects.toBeInstanceOf(ExpiredUrlError);
  });

  test('a leftover .part file of an interrupted download is removed by the next one', async () => {
    handler = serveVideo;
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(dir, 'shorts'));
    writeFileSync(join(dir, 'shorts', '.row-1.mp4.99999.part'), 'half');
    await fetchOutput(`${base}/v/a.mp4`, fetchOpts());
    expect(readdirSync(join(dir, 'shorts'))).toEqual(['row-1.mp4']);
  });

  test('fileMatches notices a truncated or altered file', async () => {
    const path = join(dir, 'f.mp4');
    writeFileSync(path, VIDEO);
    await expect(fileMatches(path, VIDEO.length + 1, sha(VIDEO))).resolves.toBe(false);
    writeFileSync(path, Buffer.alloc(VIDEO.length, 1));
    await expect(fileMatches(path, VIDEO.length, sha(VIDEO), true)).resolves.toBe(false);
    await expect(fileMatches(join(dir, 'missing'), 1, 'x')).resolves.toBe(false);
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
