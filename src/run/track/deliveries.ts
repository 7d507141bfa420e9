import type { Store } from '../../state/index.js';
import type { Clock } from '../../util/clock.js';
import type { Delivery } from './webhook-receiver.js';

/** What the runner sees of the webhook channel of one run. */
export interface Webhooks {
  /** The webhook_url for the attempt whose token is `token`. */
  urlFor(token: string): string;
  /** Resolves true once a delivery named the attempt with `token`, false after `ms` or on `signal`. */
  awaitDelivery(token: string, ms: number, signal: AbortSignal): Promise<boolean>;
}

/**
 * What a run does with a webhook delivery. Each attempt's webhook address carries its own token,
 * so a delivery says which attempt made the job it names:
 *   - an attempt whose answer (and so its remote id) is not recorded — lost, or not back yet —
 *     keeps the delivered id as evidence; the job in doubt is then adopted once a GET confirms it
 *     (reconcile.ts), for every kind that takes a webhook, searchable or not;
 *   - a job being tracked gets a hint (the tracker reads it soon; a read, never the delivery,
 *     changes its state); repeats and hints for a read already due or on its way add nothing.
 * Tokens of earlier runs' attempts are found in the database, so a run listening at the same
 * public address also settles what a killed run left in doubt.
 */
export class DeliveryDesk implements Webhooks {
  private readonly waiters = new Map<string, Set<(delivered: boolean) => void>>();
  /** Receives the tracker's hint function once the tracker exists. */
  hint: (remoteId: string, status?: string) => void = () => undefined;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    readonly urlFor: (token: string) => string,
  ) {}

  /** A delivery to `/hooks/TOKEN`; false when the token is none of this manifest's attempts (answered 404). */
  async receive(token: string, delivery: Delivery): Promise<boolean> {
    const attempt = await this.store.recordDelivery(token, delivery);
    if (!attempt) return false;
    if (!delivery.id) return true;
    this.hint(delivery.id, delivery.status);
    this.wake(token);
    return true;
  }

  /** Why the waiter is registered before the database is asked: a delivery landing between the two is then heard, not lost. */
  async awaitDelivery(token: string, ms: number, signal: AbortSignal): Promise<boolean> {
    const cancel = new AbortController();
    const waiting = new Promise<boolean>((resolve) => {
      const waiters = this.waiters.get(token) ?? new Set();
      this.waiters.set(token, waiters);
      const done = (delivered: boolean) => {
        waiters.delete(done);
        cancel.abort();
        resolve(delivered);
      };
      waiters.add(done);
      this.clock.sleep(ms, AbortSignal.any([cancel.signal, signal])).then(() => done(false), () => done(false));
    });
    if ((await this.store.attemptByHookToken(token))?.deliveredId) this.wake(token);
    return waiting;
  }

  /** Tells everyone waiting on `token` that a delivery named its attempt. */
  private wake(token: string): void {
    for (const wake of this.waiters.get(token) ?? []) wake(true);
    this.waiters.delete(token);
  }
}
