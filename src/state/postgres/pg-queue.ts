import { LocalFaultError, UsageError } from '../../errors.js';
import type { Outcome, WaveOp } from './pg-wave.js';

/** Who a write is made for: the manifest and run current when it was asked for. */
export interface WriteScope {
  manifest: string | null;
  runId: number | null;
}

/** Runs a wave of `ops` in one transaction (durably when asked); each answers alone. */
export type WaveRunner = (scope: WriteScope, ops: readonly WaveOp[], durable: boolean) => Promise<Outcome[]>;

type Entry =
  | { wave: WaveOp; scope: WriteScope; durable: boolean; resolve: (value: unknown) => void; reject: (error: unknown) => void }
  | { alone: () => Promise<unknown>; resolve: (value: unknown) => void; reject: (error: unknown) => void };

/**
 * Group commit on PostgreSQL: the store's writes, in the order they were asked for, one
 * transaction at a time. The job writes queued in one turn of the event loop (and those queued
 * while the transaction before them was on its way) form one wave — one transaction, durable when
 * any of them asks (pg-wave.ts); an operation that is not a job write (a plan's sync, the lock, a
 * hook's record) runs in a transaction of its own at its place in the order.
 *
 * A write rejected by its own check (an illegal move, a stale guard) rejects alone inside the
 * wave. A wave the database refuses as a whole (a constraint one of its rows broke) is sent again
 * one operation at a time, so only the operation at fault rejects; a lost database rejects them all.
 */
export class PgQueue {
  private queue: Entry[] = [];
  private draining = false;
  private scheduled = false;
  /** Job writes not answered yet, by job; operations alone not answered yet. */
  private readonly writing = new Map<string, number>();
  private alones = 0;

  constructor(private readonly runWave: WaveRunner) {}

  /** Queues a job write; resolves once the transaction holding it committed. */
  wave<T>(op: WaveOp<T>, scope: WriteScope, durable: boolean): Promise<T> {
    for (const key of op.keys) this.writing.set(key, (this.writing.get(key) ?? 0) + 1);
    const written = new Promise<T>((resolve, reject) => this.push({ wave: op, scope: { ...scope }, durable, resolve: resolve as (value: unknown) => void, reject }));
    return settled(written, () => {
      for (const key of op.keys) {
        const left = this.writing.get(key)! - 1;
        if (left === 0) this.writing.delete(key);
        else this.writing.set(key, left);
      }
    });
  }

  /** Queues an operation that runs its own transaction, after everything queued before it. */
  alone<T>(run: () => Promise<T>): Promise<T> {
    this.alones++;
    return settled(new Promise<T>((resolve, reject) => this.push({ alone: run, resolve: resolve as (value: unknown) => void, reject })), () => this.alones--);
  }

  /** Whether a write asked for earlier may still change job `key` (one of its writes, or any operation alone, not answered yet). */
  busy(key: string): boolean {
    return this.alones > 0 || this.writing.has(key);
  }

  private push(entry: Entry): void {
    this.queue.push(entry);
    if (this.scheduled || this.draining) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      for (let batch = this.queue.splice(0); batch.length > 0; batch = this.queue.splice(0)) {
        for (const segment of segmentsOf(batch)) await this.run(segment);
        // What the writers woken by that commit queue in their turn joins the next wave.
        await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      this.draining = false;
    }
  }

  private async run(segment: Entry[]): Promise<void> {
    const first = segment[0]!;
    if ('alone' in first) {
      await first.alone().then(first.resolve, first.reject);
      return;
    }
    const waves = segment as Extract<Entry, { wave: WaveOp }>[];
    let outcomes: Outcome[];
    try {
      outcomes = await this.runWave(first.scope, waves.map((e) => e.wave), waves.some((e) => e.durable));
    } catch (error) {
      if (waves.length > 1 && !(error instanceof LocalFaultError || error instanceof UsageError)) {
        for (const entry of waves) await this.run([entry]);
      } else {
        for (const entry of waves) entry.reject(error);
      }
      return;
    }
    waves.forEach((entry, i) => {
      const outcome = outcomes[i]!;
      if ('error' in outcome) entry.reject(outcome.error);
      else entry.resolve(outcome.value);
    });
  }
}

/** `promise`, once `after` ran on its settling. */
function settled<T>(promise: Promise<T>, after: () => void): Promise<T> {
  return promise.finally(after);
}

/** The queue cut where a wave cannot go on: an operation alone, or a write for another manifest or run. */
function segmentsOf(entries: Entry[]): Entry[][] {
  const segments: Entry[][] = [];
  for (const entry of entries) {
    const last = segments.at(-1)?.at(-1);
    const joins = last !== undefined && 'wave' in last && 'wave' in entry && last.scope.manifest === entry.scope.manifest && last.scope.runId === entry.scope.runId;
    if (joins) segments.at(-1)!.push(entry);
    else segments.push([entry]);
  }
  return segments;
}
