import { createHash } from 'node:crypto';
import { seededRandom, type Random } from '../../util/random.js';
import type { FaultName, FaultProfile } from './profile.js';

/**
 * Decides, reproducibly, whether a fault happens. Each fault name draws from its own stream seeded
 * by (seed, name): the n-th draw of `rateLimit` is the same whatever other faults were drawn.
 */
export class Faults {
  private readonly streams = new Map<FaultName, Random>();
  readonly injected: Partial<Record<FaultName, number>> = {};

  constructor(
    readonly profile: FaultProfile,
    private readonly seed: number,
  ) {}

  rate(name: FaultName): number {
    return this.profile.rates[name] ?? 0;
  }

  /** True when the fault happens this time; counted in the stats when it does. */
  draw(name: FaultName): boolean {
    const rate = this.rate(name);
    if (rate <= 0) return false;
    const hit = this.stream(name)() < rate;
    if (hit) this.injected[name] = (this.injected[name] ?? 0) + 1;
    return hit;
  }

  get retryAfterSeconds(): number {
    return this.profile.retryAfterSeconds ?? 1;
  }

  get slowMs(): number {
    return this.profile.slowMs ?? 3000;
  }

  private stream(name: FaultName): Random {
    let stream = this.streams.get(name);
    if (!stream) {
      const digest = createHash('sha256').update(`${this.seed}:${name}`).digest();
      stream = seededRandom(digest.readUInt32LE(0));
      this.streams.set(name, stream);
    }
    return stream;
  }
}
