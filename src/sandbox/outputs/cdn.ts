import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '../../util/clock.js';
import type { Faults } from '../faults/injector.js';
import { coloursFor, makePng, SAMPLE_MP4 } from './media.js';
import { UrlSigner } from './signing.js';

/** A served file; its bytes are made on first download and kept. */
export interface CdnFile {
  contentType: string;
  bytes: () => Buffer;
}

const CONTENT_TYPES: Record<string, string> = {
  mp4: 'video/mp4', m4a: 'audio/mp4', png: 'image/png', html: 'text/html; charset=utf-8', txt: 'text/plain; charset=utf-8',
};

export const contentTypeOf = (name: string) => CONTENT_TYPES[name.split('.').pop() ?? ''] ?? 'application/octet-stream';

/**
 * The sandbox's CDN. Job outputs live under /cdn/PATH and are reached only through expiring signed
 * URLs, fresh on every read of the job (`url`). Library media (link images, logos, thumbnails,
 * music) live under /media/NAME without expiry, like a product page's own images.
 */
export class Cdn {
  baseUrl = '';
  private readonly files = new Map<string, { file: CdnFile; cached?: Buffer }>();
  private readonly signer: UrlSigner;
  private readDepth = 0;

  constructor(
    private readonly clock: Clock,
    private readonly ttlSeconds: number,
    private readonly faults: Faults,
    secret: string,
  ) {
    this.signer = new UrlSigner(secret);
  }

  /**
   * Runs `answer` (a GET handler) as a job read: outputs it signs may draw urlExpired. Handlers
   * build their answers synchronously, so the flag covers exactly that request's signing.
   */
  asRead<T>(answer: () => T): T {
    this.readDepth += 1;
    try {
      return answer();
    } finally {
      this.readDepth -= 1;
    }
  }

  put(path: string, file: CdnFile): void {
    this.files.set(path, { file });
  }

  /**
   * A signed URL valid for the TTL. An output (`download`) signed while a job read is answered may
   * be issued already expired under the urlExpired fault; previews, webhook payloads and creation
   * answers never draw it, so the fault's count is what a downloader meets.
   */
  url(path: string, download = false): string {
    const nowSeconds = Math.floor(this.clock.now() / 1000);
    const expired = download && this.readDepth > 0 && this.faults.draw('urlExpired');
    const expires = expired ? nowSeconds : nowSeconds + this.ttlSeconds;
    return `${this.baseUrl}/cdn/${path}?expires=${expires}&signature=${this.signer.sign(path, expires)}`;
  }

  /** A permanent library URL. */
  mediaUrl(name: string): string {
    return `${this.baseUrl}/media/${name}`;
  }

  /** The bytes of a job output, for tests and HTML ads that embed them. */
  bytesOf(path: string): Buffer | undefined {
    const entry = this.files.get(path);
    if (!entry) return undefined;
    return (entry.cached ??= entry.file.bytes());
  }

  serveOutput(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): void {
    const verdict = this.signer.check(path, query.get('expires'), query.get('signature'), this.clock.now());
    const bytes = verdict === 'ok' ? this.bytesOf(path) : undefined;
    if (verdict !== 'ok' || !bytes) {
      const reason = verdict === 'expired' ? 'Request has expired' : 'Access denied';
      res.writeHead(403, { 'content-type': 'text/plain; charset=utf-8' }).end(`${reason}\n`);
      return;
    }
    this.send(req, res, bytes, this.files.get(path)!.file.contentType, this.faults.draw('downloadCut'));
  }

  /** The bytes of a library file: a picture for .png names, the sample MP4 otherwise. */
  mediaBytes(name: string): Buffer {
    return contentTypeOf(name) === 'image/png' ? makePng(320, 320, ...coloursFor(name)) : SAMPLE_MP4;
  }

  /** The library name of a URL this sandbox serves under /media/, if it is one. */
  mediaName(url: string): string | undefined {
    const prefix = `${this.baseUrl}/media/`;
    return url.startsWith(prefix) ? url.slice(prefix.length) : undefined;
  }

  serveMedia(req: IncomingMessage, res: ServerResponse, name: string): void {
    this.send(req, res, this.mediaBytes(name), contentTypeOf(name), false);
  }

  /** Sends bytes, honouring a single `Range: bytes=N-M`; a cut download stops halfway and resets. */
  private send(req: IncomingMessage, res: ServerResponse, bytes: Buffer, type: string, cut: boolean): void {
    const range = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? '');
    let body = bytes;
    const headers: Record<string, string | number> = { 'content-type': type, 'accept-ranges': 'bytes' };
    let status = 200;
    if (range && (range[1] || range[2])) {
      const start = range[1] ? Number(range[1]) : Math.max(0, bytes.length - Number(range[2]));
      const end = range[1] && range[2] ? Math.min(Number(range[2]), bytes.length - 1) : bytes.length - 1;
      if (start >= bytes.length || start > end) {
        res.writeHead(416, { 'content-range': `bytes */${bytes.length}` }).end();
        return;
      }
      body = bytes.subarray(start, end + 1);
      headers['content-range'] = `bytes ${start}-${end}/${bytes.length}`;
      status = 206;
    }
    headers['content-length'] = body.length;
    res.writeHead(status, headers);
    if (req.method === 'HEAD') return void res.end();
    if (!cut) return void res.end(body);
    res.write(body.subarray(0, Math.floor(body.length / 2)), () => res.socket?.destroy());
  }
}
