import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as the proxy received it. */
export interface ProxiedRequest {
  method: string;
  /** Path and query as sent. */
  url: string;
}

/** A reply the proxy gives itself instead of forwarding. */
export interface OwnReply {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

export interface HttpProxy {
  /** `http://127.0.0.1:PORT` */
  url: string;
  close(): Promise<void>;
}

/** Hop-by-hop and framing headers: the proxy's own connection sets them. */
const NOT_FORWARDED = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'content-encoding', 'keep-alive']);

/**
 * A loopback HTTP proxy (port 0) for the tests: each request is answered by `answer` when it
 * returns a reply, else forwarded to the base URL `target` picks for it, the answer passed back
 * whole. A request whose upstream fails is dropped (its socket destroyed), as a dead upstream.
 */
export async function startHttpProxy(options: {
  target: (req: ProxiedRequest) => string;
  answer?: (req: ProxiedRequest) => OwnReply | undefined;
  /** Told of each forwarded request's upstream status. */
  forwarded?: (req: ProxiedRequest, status: number) => void;
}): Promise<HttpProxy> {
  const server = createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks);
      const seen = { method: req.method ?? 'GET', url: req.url ?? '/' };
      const own = options.answer?.(seen);
      if (own) return void res.writeHead(own.status, own.headers).end(own.body ?? '');
      const upstream = await fetch(new URL(seen.url, options.target(seen)), { method: seen.method, headers: forwarded(req), ...(body.length > 0 ? { body } : {}) });
      options.forwarded?.(seen, upstream.status);
      const headers = Object.fromEntries([...upstream.headers].filter(([name]) => !NOT_FORWARDED.has(name)));
      res.writeHead(upstream.status, headers).end(Buffer.from(await upstream.arrayBuffer()));
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

const forwarded = (req: IncomingMessage): Record<string, string> =>
  Object.fromEntries(Object.entries(req.headers).filter(([name, value]) => typeof value === 'string' && !NOT_FORWARDED.has(name)) as [string, string][]);
