import type { Faults } from './faults/injector.js';
import type { Ledger } from './ledger.js';
import type { Job } from './store.js';
import type { Webhooks } from './webhooks.js';

/** GET /__sandbox/stats: what tests and benchmarks count. */
export interface SandboxStats {
  /**
   * The sandbox's speed (every duration is divided by it). A run against a standalone sandbox
   * (`--sandbox-url`) reads it once at start and scales its own waits by 1/speed.
   */
  speed: number;
  /** Requests per route pattern, e.g. `"POST /api/ai_shorts/": 3`. */
  requests: Record<string, number>;
  /** Jobs created per kind. */
  created: Record<string, number>;
  /** Creations whose kind and normalised body were already seen, on a job not (yet) failed or rejected. */
  duplicates: { total: number; byKind: Record<string, number> };
  /** Creations identical to earlier ones that all ended `failed` or `rejected`: a client's retry, not a duplicate. */
  resubmitted: { total: number; byKind: Record<string, number> };
  credits: { charged: number; refunded: number; balance: number };
  /** Injected faults by name. */
  faults: Record<string, number>;
  /** Webhook deliveries: delivered, failed (receiver down or erroring), blocked (not loopback). */
  webhooks: { delivered: number; failed: number; blocked: number };
  /** Jobs alive (started, not yet ended or resting: rendering or queued for a slot) now, and the most at once. */
  alive: { now: number; peak: number };
}

/** Sorted keys at every level, so two bodies that differ only in key order compare equal. */
export function normalise(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalise);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, normalise((value as Record<string, unknown>)[key])]),
  );
}

/** The statuses of a job the service did not make: what a client may resubmit on purpose. */
const UNMADE = new Set(['failed', 'rejected']);

/**
 * Counters. A duplicate is a creation of the same kind, on the same path, with an identical
 * normalised body; webhook_url is left out because a client may mint a fresh callback token per try.
 * Policy: a creation identical to earlier ones that **all** ended `failed` or `rejected` is counted
 * as `resubmitted`, not as a duplicate. Why: a client retrying what the service could not make pays
 * again on purpose (`retries`, `reelpipe retry`), while a duplicate is a job made twice by mistake;
 * a chaos run with retries must still be able to prove zero duplicates.
 */
export class StatsRecorder {
  private readonly requests: Record<string, number> = {};
  private readonly created: Record<string, number> = {};
  /** Every creation by its duplicate key: the jobs made (or continued) by it, oldest first. */
  private readonly seen = new Map<string, Job[]>();
  private readonly duplicates = { total: 0, byKind: {} as Record<string, number> };
  private readonly resubmitted = { total: 0, byKind: {} as Record<string, number> };

  request(key: string): void {
    this.requests[key] = (this.requests[key] ?? 0) + 1;
  }

  /** `job`: the job the creation made, or the one a further step (a render) continues. */
  creation(kind: string, path: string, body: Record<string, unknown>, job: Job): void {
    this.created[kind] = (this.created[kind] ?? 0) + 1;
    const { webhook_url: _ignored, ...rest } = body;
    const key = `${kind} ${path} ${JSON.stringify(normalise(rest))}`;
    const earlier = this.seen.get(key);
    if (!earlier) {
      this.seen.set(key, [job]);
      return;
    }
    const counter = earlier.every((made) => UNMADE.has(made.status)) ? this.resubmitted : this.duplicates;
    counter.total += 1;
    counter.byKind[kind] = (counter.byKind[kind] ?? 0) + 1;
    earlier.push(job);
  }

  snapshot(speed: number, ledger: Ledger, faults: Faults, webhooks: Webhooks, alive: { now: number; peak: number }): SandboxStats {
    return {
      speed,
      requests: { ...this.requests },
      created: { ...this.created },
      duplicates: { total: this.duplicates.total, byKind: { ...this.duplicates.byKind } },
      resubmitted: { total: this.resubmitted.total, byKind: { ...this.resubmitted.byKind } },
      credits: { charged: ledger.charged, refunded: ledger.refunded, balance: ledger.balance },
      faults: { ...faults.injected },
      webhooks: { delivered: webhooks.delivered, failed: webhooks.failed, blocked: webhooks.blocked },
      alive,
    };
  }
}
