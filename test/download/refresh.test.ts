import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DownloadError } from '../../src/errors.js';
import { RefreshUnavailableError, fetchOutput } from '../../src/download/index.js';
import { runCli } from '../helpers/cli.js';
import { startScriptedServer, type ScriptedServer } from '../helpers/scripted-server.js';
import { VIDEO, useMediaServer } from './fixtures/media-server.js';

/**
 * Re-reading a job for a fresh link is a read like any other: when the service says "not now"
 * (429, 503), it is tried again after the advised wait, and given up on with a visible reason.
 */
const media = useMediaServer();
const expiredThenFresh = () => {
  media.handler = (req, res) => {
    if (req.url?.startsWith('/old')) {
      res.writeHead(410);
      res.end();
    } else {
      res.writeHead(200, { 'content-type': 'video/mp4' });
      res.end(VIDEO);
    }
  };
};
const unavailable = (retryAfterMs?: number) => new RefreshUnavailableError('aiShorts.get: HTTP 429: slow down', retryAfterMs, undefined);

describe('refreshing an expired link', () => {
  test('a re-read that is rate limited counts as a try; the next one waits the advised time and re-reads', async () => {
    expiredThenFresh();
    const waits: number[] = [];
    let reads = 0;
    const refresh = async () => {
      reads += 1;
      if (reads <= 2) throw unavailable(reads === 1 ? 5000 : undefined);
      return `${media.base}/new/a.mp4`;
    };
    const file = await fetchOutput(`${media.base}/old/a.mp4`, { ...media.fetchOpts(refresh), sleep: async (ms) => void waits.push(ms) });

    expect(file.bytes).toBe(VIDEO.length);
    expect(reads).toBe(3);
    expect(waits).toEqual([5000, 2000]); // advised 5 s; then the download's own backoff (500 ms, doubled per try: the third)
  });

  test('a re-read that stays unavailable is given up with the reason, after the same tries as any download', async () => {
    expiredThenFresh();
    const error = await fetchOutput(`${media.base}/old/a.mp4`, media.fetchOpts(async () => {
      throw unavailable();
    })).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(DownloadError);
    expect((error as Error).message).toBe(
      `gave up on ${media.base}/old/a.mp4 after 4 tries: could not re-read the job for a fresh link: aiShorts.get: HTTP 429: slow down`,
    );
  });

  test('any other failure of the re-read ends the download at once', async () => {
    expiredThenFresh();
    let reads = 0;
    const refresh = async () => {
      reads += 1;
      throw new DownloadError('shorts:1: the output link expired and ai_short jobs cannot be re-read');
    };
    await expect(fetchOutput(`${media.base}/old/a.mp4`, media.fetchOpts(refresh))).rejects.toThrow(/cannot be re-read/);
    expect(reads).toBe(1);
  });
});

describe('through the real CLI', () => {
  const JOB = '3f2a6c1e-8b4d-4e2a-9c1f-0a1b2c3d4e5f';
  let server: ScriptedServer;
  let dir: string;
  beforeAll(async () => {
    server = await startScriptedServer();
    dir = mkdtempSync(join(tmpdir(), 'reelpipe-refresh-'));
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('an expired link whose re-read is answered 429 more times than the client retries is still downloaded in the run', async () => {
    const done = (file: string) => ({ id: JOB, status: 'done', video_output: `${server.url}/media/${file}` });
    const busy = { status: 429, headers: { 'retry-after': '0' }, json: { detail: 'Request was throttled.' } };
    server.script('POST', '/api/ai_shorts/', { status: 201, json: { id: JOB, status: 'pending' } });
    server.script('GET', '/api/ai_shorts/', { status: 200, json: [done('old.mp4')] });
    server.script('GET', '/media/old.mp4', { status: 410 });
    // The client tries each read 4 times: this re-read fails as a whole, then the next succeeds.
    server.script('GET', `/api/ai_shorts/${JOB}/`, busy, busy, busy, busy, { status: 200, json: done('new.mp4') });
    server.script('GET', '/media/new.mp4', { status: 200, text: 'the video', headers: { 'content-type': 'video/mp4' } });
    writeFileSync(join(dir, 'one.yaml'), 'version: 1\nname: one\noutputs: out\nsteps:\n  - id: s\n    kind: ai_short\n' +
      '    name: clip\n    with: { script: "A lamp.", style: Cinematic, aspect_ratio: 9x16 }\n');
    const env = { REELPIPE_BASE_URL: server.url, REELPIPE_API_ID: 'acct-refresh-1', REELPIPE_API_KEY: 'key-refresh-0001' };
    const run = await runCli(['run', 'one.yaml', '--time-scale', '0.001'], { cwd: dir, env, timeout: 60_000 });

    expect(run.exitCode, run.stderr).toBe(0);
    expect(readFileSync(join(dir, 'out', 's', 'clip.mp4'), 'utf8')).toBe('the video');
    expect(server.unscripted).toEqual([]);
  });
});
