import { readFileSync } from 'node:fs';
import { inflateSync } from 'node:zlib';
import { describe, expect, test } from 'vitest';
import { SAMPLE_MP4 } from '../../../src/sandbox/outputs/media.js';
import { HOUR, makeLink, sandboxFor } from '../helpers.js';

/** Outputs are served by the sandbox itself, through signed URLs that expire. */
async function doneBoreal(options = {}) {
  const t = await sandboxFor({ outputTtlSeconds: 60, ...options });
  const id = (await t.post('/api/boreal/', { prompt: 'p', duration: 5 })).body.id;
  t.advance(HOUR);
  return { t, id, read: async () => (await t.get(`/api/boreal/${id}/`)).body };
}

describe('output URLs', () => {
  test('serve a valid MP4 until the TTL, then 403; a re-read of the job gives a fresh URL', async () => {
    const { t, read } = await doneBoreal();
    const first = (await read()).video_output as string;
    const ok = await fetch(first);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toBe('video/mp4');
    const bytes = Buffer.from(await ok.arrayBuffer());
    expect(bytes.subarray(4, 8).toString('ascii')).toBe('ftyp');
    t.advance(60_000);
    const expired = await fetch(first);
    expect(expired.status).toBe(403);
    expect(await expired.text()).toMatch(/expired/);
    const fresh = (await read()).video_output as string;
    expect(fresh).not.toBe(first);
    expect((await fetch(fresh)).status).toBe(200);
  });

  test('a tampered signature or path is refused', async () => {
    const { read } = await doneBoreal();
    const url = (await read()).video_output as string;
    expect((await fetch(url.replace(/signature=\w/, 'signature=0'))).status).toBe(403);
    expect((await fetch(url.replace('video.mp4', 'other.mp4'))).status).toBe(403);
    expect((await fetch(url.split('?')[0]!)).status).toBe(403);
  });

  test('a Range request resumes a download', async () => {
    const { read } = await doneBoreal();
    const url = (await read()).video_output as string;
    const tail = await fetch(url, { headers: { range: 'bytes=1000-' } });
    expect(tail.status).toBe(206);
    expect(tail.headers.get('content-range')).toBe(`bytes 1000-${SAMPLE_MP4.length - 1}/${SAMPLE_MP4.length}`);
    expect(Buffer.from(await tail.arrayBuffer()).equals(SAMPLE_MP4.subarray(1000))).toBe(true);
    expect((await fetch(url, { headers: { range: `bytes=${SAMPLE_MP4.length}-` } })).status).toBe(416);
  });

  test('the inlined sample video is the committed fixture', () => {
    const fixture = readFileSync(new URL('../../../src/sandbox/fixtures/sample.mp4', import.meta.url));
    expect(SAMPLE_MP4.equals(fixture)).toBe(true);
  });
});

describe('generated media', () => {
  test('asset images are real PNGs of the stated size', async () => {
    const t = await sandboxFor();
    const id = (await t.post('/api/asset_generator/', { model_name: 'sandbox-image-v1', input_params: { prompt: 'cat' }, output_nums: 2 })).body.id;
    t.advance(HOUR);
    const asset = (await t.get(`/api/asset_generator/${id}/`)).body;
    expect(asset.assets).toHaveLength(2);
    expect(asset.assets[0]).toEqual({ id: `${id}-1`, type: 'image', url: expect.any(String), thumbnail_url: expect.any(String), name: 'asset-1.png' });
    const png = Buffer.from(await (await fetch(asset.assets[1].url)).arrayBuffer());
    expect(png.subarray(1, 4).toString('ascii')).toBe('PNG');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([256, 256]);
    const idat = png.indexOf('IDAT');
    const pixels = inflateSync(png.subarray(idat + 4, idat + 4 + png.readUInt32BE(idat - 4)));
    expect(pixels.length).toBe(256 * (1 + 256 * 3));
  });

  test('HTML ads are self-contained playable pages built from the link, one per style', async () => {
    const t = await sandboxFor();
    const link = await makeLink(t);
    await t.call('PUT', `/api/links/${link}/`, { title: 'Trail <Shoe>' });
    const id = (await t.post('/api/html_interactive_ads/', { link, style_ids: ['quiz-3q', 'carousel'], promotion_info: '20% off today' })).body.id;
    t.advance(HOUR);
    const job = (await t.get(`/api/html_interactive_ads/${id}/`)).body;
    expect(job.ads.map((ad: { style_id: string; status: string }) => [ad.style_id, ad.status])).toEqual([['quiz-3q', 'done'], ['carousel', 'done']]);
    const page = await fetch(job.ads[1].url);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const html = await page.text();
    expect(html).toContain('<title>Trail &lt;Shoe&gt; · Product Carousel</title>');
    expect(html).toContain('20% off today');
    expect(html.match(/<img class="slide" src="data:image\/png;base64,/g)).toHaveLength(3); // the link's three images, embedded
    expect(html).toContain('<img src="data:image/png;base64,'); // the logo, embedded too
    expect(html).toContain('<script>');
    expect(html).not.toMatch(/<script src=|<link rel="stylesheet"/);
    expect(html.match(/(?:src|href)\s*=\s*["']?\s*(?:https?:)?\/\//gi) ?? []).toEqual([]); // nothing fetched from elsewhere
  });

  test('an ad built from photos the sandbox cannot fetch embeds stand-ins and counts their size', async () => {
    const t = await sandboxFor();
    const photos = ['https://shop.example.com/a.jpg', 'https://shop.example.com/b.jpg?size_mb=6'];
    const link = (await t.post('/api/links/link_with_params/', { title: 'Trail', image_urls: photos, logo_url: 'https://shop.example.com/logo.png' })).body.id;
    const id = (await t.post('/api/html_interactive_ads/', { link, style_ids: ['scratch-card', 'carousel'] })).body.id;
    t.advance(HOUR);
    const job = (await t.get(`/api/html_interactive_ads/${id}/`)).body;
    // A game carries one photo (0.15 MB); a showcase carries both, and the 6 MB one breaks the 5 MB limit.
    expect(job.ads.map((ad: { style_id: string; status: string }) => [ad.style_id, ad.status])).toEqual([['scratch-card', 'done'], ['carousel', 'failed']]);
    const html = await (await fetch(job.ads[0].url)).text();
    expect(html).toContain('<img class="slide" src="data:image/png;base64,');
    expect(html).toContain('<img src="data:image/png;base64,'); // the logo
    expect(html.match(/(?:src|href)\s*=\s*["']?\s*(?:https?:)?\/\//gi) ?? []).toEqual([]);
    expect(html).not.toContain('shop.example.com');
  });

  test('library media (link images, music) are served without expiry', async () => {
    const t = await sandboxFor();
    const link = (await t.get(`/api/links/${await makeLink(t)}/`)).body;
    t.advance(HOUR * 1000);
    const image = await fetch(link.image_urls[0]);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/png');
    const track = (await t.get('/api/musics/?page_size=1')).body.results[0];
    expect((await fetch(track.url)).status).toBe(200);
  });
});
