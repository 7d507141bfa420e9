import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BlockedAddressError, fetchOutput, guardedDispatcher, isPrivateAddress } from '../../src/download/index.js';
import { useMediaServer } from './fixtures/media-server.js';

/**
 * Output links are the service's text: they are fetched only from public addresses, the service's
 * own host, or hosts the operator allows. The media server stands for the service (loopback, like
 * the sandbox); a second server on another port of loopback stands for "this machine".
 */
const media = useMediaServer();
let victim: Server;
let victimUrl: string;
let victimHits = 0;
beforeAll(async () => {
  victim = createServer((_req, res) => {
    victimHits += 1;
    res.writeHead(200, { 'content-type': 'video/mp4' });
    res.end('internal admin page');
  });
  await new Promise<void>((resolve) => victim.listen(0, '127.0.0.1', resolve));
  victimUrl = `http://127.0.0.1:${(victim.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => victim.close(() => resolve())));

describe('private addresses', () => {
  test.each([
    ['127.0.0.1', true], ['127.255.0.9', true], ['10.1.2.3', true], ['172.16.0.1', true], ['172.31.255.255', true],
    ['192.168.1.1', true], ['169.254.169.254', true], ['100.64.0.1', true], ['0.0.0.0', true], ['224.0.0.1', true],
    ['255.255.255.255', true], ['::1', true], ['::', true], ['fe80::1', true], ['fd12:3456::1', true], ['ff02::1', true],
    ['::ffff:127.0.0.1', true], ['::ffff:8.8.8.8', true], ['64:ff9b::a00:1', true],
    ['8.8.8.8', false], ['172.32.0.1', false], ['100.128.0.1', false], ['93.184.216.34', false], ['2606:4700::1111', false],
  ])('%s is private: %s', (address, expected) => expect(isPrivateAddress(address)).toBe(expected));
});

describe('downloading from a private address', () => {
  test('a link to another port of loopback is refused after one re-read of the job, and nothing is requested or saved', async () => {
    let refreshed = 0;
    const error = await fetchOutput(`${victimUrl}/evil.mp4`, media.fetchOpts(async () => (refreshed++, `${victimUrl}/evil.mp4`))).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(BlockedAddressError);
    expect((error as Error).message).toMatch(/refused to fetch from 127\.0\.0\.1, a private address .*REELPIPE_DOWNLOAD_ALLOW_HOSTS/);
    expect(refreshed).toBe(1);
    expect(victimHits).toBe(0);
    expect(readdirSync(media.dir)).toEqual([]);
  });

  test('a fresh link from the re-read (a restarted sandbox\'s new port) is fetched', async () => {
    const file = await fetchOutput(`${victimUrl}/old-port.mp4`, media.fetchOpts(async () => `${media.base}/v/a.mp4`));
    expect(file.bytes).toBeGreaterThan(0);
    expect(victimHits).toBe(0);
  });

  test('a name resolving to loopback is refused at connect time (the address connected to is the one checked)', async () => {
    const port = new URL(victimUrl).port;
    const error = await fetchOutput(`http://localhost:${port}/evil.mp4`, media.fetchOpts()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BlockedAddressError);
    expect((error as Error).message).toMatch(/localhost: it is at (127\.0\.0\.1|::1)/);
  });

  test('an IPv4-mapped IPv6 literal is no way round', async () => {
    const port = new URL(victimUrl).port;
    const error = await fetchOutput(`http://[::ffff:127.0.0.1]:${port}/evil.mp4`, media.fetchOpts()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BlockedAddressError);
  });

  test('a redirect from the service\'s own host to a private address is refused too', async () => {
    media.handler = (_req, res) => {
      res.writeHead(302, { location: `${victimUrl}/evil.mp4` });
      res.end();
    };
    const error = await fetchOutput(`${media.base}/v/redirect.mp4`, media.fetchOpts()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BlockedAddressError);
    expect(victimHits).toBe(0);
  });

  test.each([
    ['the host', () => ['127.0.0.1']],
    ['the host and its port', () => [new URL(victimUrl).host]],
  ])('a host the operator allows (%s) is fetched', async (_name, allowHosts) => {
    const dispatcher = guardedDispatcher({ serviceUrl: media.base, allowHosts: allowHosts() });
    const file = await fetchOutput(`${victimUrl}/internal.mp4`, { ...media.fetchOpts(), dispatcher });
    expect(file.bytes).toBe('internal admin page'.length);
  });

  test('a service configured as localhost:PORT may link its outputs at 127.0.0.1:PORT (one server), not at another port', async () => {
    const dispatcher = guardedDispatcher({ serviceUrl: media.base.replace('127.0.0.1', 'localhost') });
    const file = await fetchOutput(`${media.base}/v/a.mp4`, { ...media.fetchOpts(), dispatcher });
    expect(file.bytes).toBeGreaterThan(0);
    await expect(fetchOutput(`${victimUrl}/x.mp4`, { ...media.fetchOpts(), dispatcher })).rejects.toBeInstanceOf(BlockedAddressError);
  });

  test('an allowed host:port allows that port only', async () => {
    const dispatcher = guardedDispatcher({ serviceUrl: media.base, allowHosts: ['127.0.0.1:1'] });
    await expect(fetchOutput(`${victimUrl}/x.mp4`, { ...media.fetchOpts(), dispatcher })).rejects.toBeInstanceOf(BlockedAddressError);
  });
});
