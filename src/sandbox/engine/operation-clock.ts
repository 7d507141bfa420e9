import type { Clock } from '../../util/clock.js';

/**
 * The sandbox's clock: the configured one, held still while an operation runs, so every timestamp
 * the operation makes (created_at, the start of its first phase, a link's updated_at) is the same
 * instant — the one the journal records, and the one a replay sets it to.
 */
export class OperationClock implements Clock {
  private held: number | undefined;

  constructor(private readonly base: Clock) {}

  now(): number {
    return this.held ?? this.base.now();
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return this.base.sleep(ms, signal);
  }

  hold(at: number): void {
    this.held = at;
  }

  release(): void {
    this.held = undefined;
  }
}
