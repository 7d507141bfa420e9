import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UsageError } from '../../errors.js';

/** webhook_url may hold at most 200 characters (spec, Limits). */
const WEBHOOK_URL_MAX = 200;
/** A delivery is a small JSON subset of the job; anything larger is not one. */
const MAX_BODY_BYTES = 64 * 1024;
/** `/hooks/` and a token of 16 random bytes in base64url (22 characters). */
const HOOK_PATH = /\/hooks\/([A-Za-z0-9_-]{22})$/;

/** What a delivery says: the job's remote id and status (a small subset; behaviour notes). */
export interface Delivery {
  id?: string;
  status?: string;
}

export interface WebhookReceiver {
  /** The webhook_url for the attempt whose token is `token`: the public URL, /hooks/, the token. */
  urlFor(token: string): string;
  /** Where it actually listens (the port is chosen by the system for port 0). */
  listening: { host: string; port: number };
  deliveries: number;
  close(): Promise<void>;
}

/** A fresh, unguessable token for one attempt's webhook address. */
export function mintHookToken(): string {
  return randomBytes(16).toString('base64url');
}

/** Parses `HOST:PORT` (`[::1]:8080` for IPv6). */
export function parseListen(value: string): { host: string; port: number } {
  const match = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(value.trim());
  const port = Number(match?.[2]);
  if (!match || port > 65535) throw new UsageError(`--webhook-listen takes HOST:PORT, e.g. 0.0.0.0:8787, got "${value}"`);
  return { host: match[1]!.replace(/^\[|\]$/g, ''), port };
}

/**
 * Receives job webhooks. The service signs nothing (behaviour notes), so every attempt gets its
 * own unguessable address, `PUBLIC/hooks/TOKEN`: a delivery to it says which attempt made the job
 * it names — the evidence that settles a creation whose answer was lost — and nobody who does not
 * know the token can speak for a job. `onDelivery(token, delivery)` answers whether the token is
 * one of ours (204) or not (404), once recorded; what it does with the delivery is the caller's (a delivery is a
 * hint and evidence to be confirmed by a GET, never a state by itself).
 */
export async function startWebhookReceiver(
  listen: string,
  publicUrl: string,
  onDelivery: (token: string, delivery: Delivery) => Promise<boolean>,
): Promise<WebhookReceiver> {
  const base = `${publicUrl.replace(/\/+$/, '')}/hooks/`;
  const sample = `${base}${mintHookToken()}`;
  if (!/^https?:\/\//.test(base) || sample.length > WEBHOOK_URL_MAX) {
    throw new UsageError(`--webhook-public-url must be an http(s) URL short enough for webhook_url (${WEBHOOK_URL_MAX} characters with /hooks/ and a 22-character token)`);
  }
  const receiver = { deliveries: 0 };
  const server = createServer((req, res) => {
    // A proxy in front may pass the public URL's own path prefix through, or strip it: the token ends the path either way.
    const token = req.method === 'POST' ? HOOK_PATH.exec((req.url ?? '').split('?')[0] ?? '')?.[1] : undefined;
    if (!token) return void res.writeHead(404).end();
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) req.destroy();
      else chunks.push(chunk);
    });
    req.on('end', () => {
      receiver.deliveries++;
      // Answered once the delivery is recorded: a 204 means the evidence is committed. A state
      // that cannot take it answers 500, so a sender that retries delivers it again.
      onDelivery(token, deliveryOf(Buffer.concat(chunks).toString('utf8'))).then(
        (known) => res.writeHead(known ? 204 : 404).end(),
        () => res.writeHead(500).end(),
      );
    });
  });
  const where = parseListen(listen);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(where.port, where.host, () => resolve());
  });
  return {
    urlFor: (token) => `${base}${token}`,
    listening: { host: where.host, port: (server.address() as AddressInfo).port },
    get deliveries() {
      return receiver.deliveries;
    },
    close: () => closeServer(server),
  };
}

function deliveryOf(text: string): Delivery {
  try {
    const body = JSON.parse(text) as { id?: unknown; status?: unknown };
    return {
      ...(typeof body.id === 'string' ? { id: body.id } : {}),
      ...(typeof body.status === 'string' ? { status: body.status } : {}),
    };
  } catch {
    return {};
  }
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
