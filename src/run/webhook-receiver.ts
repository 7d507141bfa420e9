import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UsageError } from '../errors.js';

/** webhook_url may hold at most 200 characters (spec, Limits). */
const WEBHOOK_URL_MAX = 200;
/** A delivery is a small JSON subset of the job; anything larger is not one. */
const MAX_BODY_BYTES = 64 * 1024;

export interface WebhookReceiver {
  /** The address to send as webhook_url: the public URL plus the secret path. */
  url: string;
  /** Where it actually listens (the port is chosen by the system for port 0). */
  listening: { host: string; port: number };
  deliveries: number;
  close(): Promise<void>;
}

/** Parses `HOST:PORT` (`[::1]:8080` for IPv6). */
export function parseListen(value: string): { host: string; port: number } {
  const match = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(value.trim());
  const port = Number(match?.[2]);
  if (!match || port > 65535) throw new UsageError(`--webhook-listen takes HOST:PORT, e.g. 0.0.0.0:8787, got "${value}"`);
  return { host: match[1]!.replace(/^\[|\]$/g, ''), port };
}

/**
 * Receives job webhooks. The service signs nothing (behaviour notes), so the receiver hides behind
 * an unguessable path token minted per run, and a delivery is only a hint: `onHint(id)` makes the
 * runner read that job now, and the read, never the delivery, changes any state.
 */
export async function startWebhookReceiver(
  listen: string,
  publicUrl: string,
  onHint: (remoteId: string) => void,
): Promise<WebhookReceiver> {
  const token = randomBytes(18).toString('base64url');
  const path = `/hooks/${token}`;
  const url = `${publicUrl.replace(/\/+$/, '')}${path}`;
  if (!/^https?:\/\//.test(url) || url.length > WEBHOOK_URL_MAX) {
    throw new UsageError(`--webhook-public-url must be an http(s) URL short enough for webhook_url (${WEBHOOK_URL_MAX} characters with the path)`);
  }
  // A proxy in front may pass the public URL's own path prefix through, or strip it: accept both.
  const accepted = new Set([path, new URL(url).pathname]);
  const receiver = { deliveries: 0 };
  const server = createServer((req, res) => {
    if (req.method !== 'POST' || !accepted.has(req.url ?? '')) return void res.writeHead(404).end();
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) req.destroy();
      else chunks.push(chunk);
    });
    req.on('end', () => {
      receiver.deliveries++;
      const id = idOf(Buffer.concat(chunks).toString('utf8'));
      if (id) onHint(id);
      res.writeHead(204).end();
    });
  });
  const where = parseListen(listen);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(where.port, where.host, () => resolve());
  });
  return {
    url,
    listening: { host: where.host, port: (server.address() as AddressInfo).port },
    get deliveries() {
      return receiver.deliveries;
    },
    close: () => closeServer(server),
  };
}

function idOf(text: string): string | undefined {
  try {
    const body = JSON.parse(text) as { id?: unknown };
    return typeof body.id === 'string' ? body.id : undefined;
  } catch {
    return undefined;
  }
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
