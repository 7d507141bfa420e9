import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as the server received it. */
export interface RecordedRequest {
  method: string;
  /** Path without the query string. */
  path: string;
  /** The query, decoded. */
  query: Record<string, string>;
  /** Path and query exactly as sent. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** How the server answers one request. */
export type Reply =
  | { status: number; json?: unknown; text?: string; headers?: Record<string, string> }
  /** Read the whole request, then destroy the socket without answering. */
  | { drop: true }
  /** Read the whole request and never answer (until the server closes). */
  | { hang: true }
  /**
   * Answer `status` with no Content-Length, then write `chunk` `count` times (Infinity: until the
   * client goes away), `everyMs` apart: a trickle (one byte every so often) or a flood.
   */
  | { stream: { status: number; chunk: string; count: number; everyMs: number } };

export interface ScriptedServer {
  /** `http://127.0.0.1:PORT` */
  url: string;
  port: number;
  /** Every request received, in order. */
  requests: RecordedRequest[];
  /** Requests no script was left for; they were answered 418 (never retried by the client). */
  unscripted: RecordedRequest[];
  /** TCP connections accepted so far. */
  connections: number;
  /** Queues replies for `METHOD /path/` (query ignored); each matching request takes the next one. */
  script(method: string, path: string, ...replies: Reply[]): void;
  /** Requests received for `METHOD /path/`. */
  requestsTo(method: string, path: string): RecordedRequest[];
  /** Forgets scripts and recordings. */
  reset(): void;
  close(): Promise<void>;
}

/**
 * A real node:http server on 127.0.0.1 (port 0 unless told), whose answers are scripted per route and request
 * count, recording every request: the remote side of the client tests, over real sockets.
 */
export async function startScriptedServer(options: { port?: number } = {}): Promise<ScriptedServer> {
  const queues = new Map<string, Reply[]>();
  const state = { requests: [] as RecordedRequest[], unscripted: [] as RecordedRequest[], connections: 0 };
  const key = (method: string, path: string) => `${method.toUpperCase()} ${path}`;

  const server = createServer((req, res) => {
    void readRequest(req).then((recorded) => {
      state.requests.push(recorded);
      const reply = queues.get(key(recorded.method, recorded.path))?.shift();
      if (!reply) {
        state.unscripted.push(recorded);
        send(res, { status: 418, json: { detail: `unscripted request ${recorded.method} ${recorded.path}` } });
        return;
      }
      answer(req, res, reply);
    });
  });
  server.on('connection', () => (state.connections += 1));
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    get requests() { return state.requests; },
    get unscripted() { return state.unscripted; },
    get connections() { return state.connections; },
    script: (method, path, ...replies) => {
      queues.set(key(method, path), [...(queues.get(key(method, path)) ?? []), ...replies]);
    },
    requestsTo: (method, path) => state.requests.filter((r) => key(r.method, r.path) === key(method, path)),
    reset: () => {
      queues.clear();
      state.requests = [];
      state.unscripted = [];
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

async function readRequest(req: IncomingMessage): Promise<RecordedRequest> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const url = new URL(req.url ?? '/', 'http://scripted');
  return {
    method: req.method ?? 'GET',
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    url: req.url ?? '/',
    headers: req.headers,
    body: Buffer.concat(chunks).toString('utf8'),
  };
}

function answer(req: IncomingMessage, res: ServerResponse, reply: Reply): void {
  if ('drop' in reply) {
    req.socket.destroy();
    return;
  }
  if ('hang' in reply) return;
  if ('stream' in reply) return void stream(res, reply.stream);
  send(res, reply);
}

function stream(res: ServerResponse, { status, chunk, count, everyMs }: { status: number; chunk: string; count: number; everyMs: number }): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  let written = 0;
  const next = (): void => {
    if (res.destroyed || written >= count) return void res.end();
    written += 1;
    // Wait for the socket to drain, so a client that stops reading stops the flood.
    const drained = res.write(chunk);
    if (!drained) res.once('drain', () => setTimeout(next, everyMs));
    else setTimeout(next, everyMs);
  };
  next();
}

function send(res: ServerResponse, reply: { status: number; json?: unknown; text?: string; headers?: Record<string, string> }): void {
  const body = reply.json !== undefined ? JSON.stringify(reply.json) : (reply.text ?? '');
  const type = reply.json !== undefined ? { 'content-type': 'application/json' } : {};
  res.writeHead(reply.status, { ...type, ...reply.headers });
  res.end(body);
}
