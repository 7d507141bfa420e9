import type { Logger } from 'pino';
import type { Faults } from './faults/injector.js';
import { undici } from '../util/lazy-undici.js';

/** Loopback hosts: where webhooks may go unless delivery anywhere is allowed. */
export function isLoopbackUrl(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return false;
  }
  return host === 'localhost' || host === '[::1]' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** Why: a receiver that hangs must not pile up sockets in the sandbox. */
const DELIVERY_TIMEOUT_MS = 5000;

/**
 * Webhook delivery: an HTTP POST of a JSON payload, no signing and no retries (as documented for
 * the live service). Deliveries of one job go out in order; a dropped or duplicated webhook is a
 * fault drawn per delivery. Only loopback receivers unless `allowAnyHost`: the sandbox must never
 * be a way to send traffic off the machine by accident.
 */
export class Webhooks {
  delivered = 0;
  failed = 0;
  blocked = 0;
  private readonly chains = new Map<string, Promise<void>>();

  constructor(
    private readonly faults: Faults,
    private readonly allowAnyHost: boolean,
    private readonly logger: Logger,
  ) {}

  notify(jobId: string, url: string, payload: Record<string, unknown>): void {
    if (!this.allowAnyHost && !isLoopbackUrl(url)) {
      this.blocked += 1;
      this.logger.warn({ jobId, url }, 'webhook not sent: not a loopback address (see --allow-webhooks-anywhere)');
      return;
    }
    if (this.faults.draw('webhookDrop')) return;
    const times = this.faults.draw('webhookDuplicate') ? 2 : 1;
    const body = JSON.stringify(payload);
    let chain = this.chains.get(jobId) ?? Promise.resolve();
    for (let i = 0; i < times; i += 1) chain = chain.then(() => this.post(url, body));
    this.chains.set(jobId, chain);
    void chain.then(() => {
      if (this.chains.get(jobId) === chain) this.chains.delete(jobId);
    });
  }

  /** Resolves when every delivery started so far has ended. */
  async settle(): Promise<void> {
    while (this.chains.size > 0) await Promise.all(this.chains.values());
  }

  private async post(url: string, body: string): Promise<void> {
    try {
      // Loaded on first delivery: most sandboxes never send a webhook, and start-up stays fast.
      const { request } = undici();
      const response = await request(url, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json', 'user-agent': 'reelpipe-sandbox-webhooks' },
        headersTimeout: DELIVERY_TIMEOUT_MS,
        bodyTimeout: DELIVERY_TIMEOUT_MS,
      });
      await response.body.dump();
      if (response.statusCode >= 400) throw new Error(`receiver answered ${response.statusCode}`);
      this.delivered += 1;
    } catch (error) {
      this.failed += 1;
      this.logger.debug({ url, err: (error as Error).message }, 'webhook delivery failed');
    }
  }
}
