import pLimit from 'p-limit';
import { ApiNotFoundError } from '../api/index.js';
import type { JobRow } from '../state/index.js';
import { adapterFor, type KindAdapter, type RemoteView, type Resource } from './adapters/index.js';
import { settleCost } from './budget-stop.js';
import { expectedSeconds } from './expected-duration.js';
import { pollDelayMs } from './poll-schedule.js';
import type { RunContext } from './run-context.js';
import { announce } from './submit-job.js';

/**
 * Why a 404 on reading a submitted job fails it: the service answered that the job does not exist
 * (deleted, or made by another environment such as an earlier embedded sandbox). Polling it
 * forever would never finish; the job fails with that reason, and `reelpipe retry` resubmits it.
 */
function gone(entry: Watched, error: ApiNotFoundError): Resource {
  return { status: 'failed', process_status: 'failed', failed_reason: `the service no longer knows job ${entry.job.remoteId}: ${error.message}` };
}

/** The most ids one list request may carry (the service's `ids` limit). */
const IDS_PER_LIST = 100;

interface Watched {
  job: JobRow;
  adapter: KindAdapter;
  /** When to read it next; Infinity while a read of it is on its way. */
  dueAt: number;
  since: number;
  /** Seconds the job is expected to take at the service (its kind and its media length). */
  expected: number;
  resolve: (outcome: TrackOutcome) => void;
}

/** How tracking a job ended: finished one way or the other, or stopped by the run. */
export type TrackOutcome = 'done' | 'failed' | 'halted';

/**
 * Reads submitted jobs until they finish. One loop for the whole run: it sleeps until the
 * earliest job is due, then reads every due job, batching kinds that have an `ids` list (and
 * taking along jobs of that kind due soon: one request reads up to 100). A kind whose list the
 * service refuses falls back to single reads for the rest of the run. A webhook is a hint that
 * makes its job due now; the read is still what counts.
 */
export class Tracker {
  private readonly watched = new Map<string, Watched>();
  private readonly byRemoteId = new Map<string, string>();
  private readonly listRefused = new Set<string>();
  private wake: (() => void) | null = null;
  private loop: Promise<void> | null = null;
  private readonly inFlight = new Set<Promise<void>>();
  reads = 0;

  constructor(private readonly ctx: RunContext) {}

  /** Tracks `job` until it finishes; the promise says how it ended. */
  track(job: JobRow): Promise<TrackOutcome> {
    const adapter = adapterFor(job.kind, this.ctx.planned.get(job.key)?.mode);
    if (!adapter.read) return Promise.resolve(this.unreadable(job, adapter));
    const now = this.ctx.clock.now();
    return new Promise((resolve) => {
      const since = job.submittedAt ?? now;
      const expected = expectedSeconds(this.ctx.planned.get(job.key), adapter.typicalSeconds);
      this.watched.set(job.key, { job, adapter, since, expected, resolve, dueAt: now + this.delay(expected, now - since) });
      if (job.remoteId) this.byRemoteId.set(job.remoteId, job.key);
      this.loop ??= this.run().finally(() => (this.loop = null));
      this.wake?.();
    });
  }

  /**
   * Policy: a job whose kind cannot be read is never polled (it would be polled forever, holding
   * the run and its lock). A kind finished at creation with its answer on the row is done with
   * that answer; anything else fails with the reason, naming the remote id to check by hand.
   */
  private unreadable(job: JobRow, adapter: KindAdapter): TrackOutcome {
    const kept = adapter.mode === 'instant' && job.result ? job.result : undefined;
    const why = `${job.kind} jobs cannot be read, so ${job.remoteId ?? 'this job'} cannot be tracked; check it at the service before \`reelpipe retry\``;
    const view: RemoteView = kept
      ? { ...adapter.view(kept), phase: 'done' }
      : { phase: 'failed', remoteStatus: job.remoteStatus ?? 'unreadable', creditsUsed: null, failedReason: why, outputs: [] };
    const entry: Watched = { job, adapter, dueAt: Infinity, since: job.submittedAt ?? this.ctx.clock.now(), expected: 0, resolve: () => undefined };
    // Never undefined: only a pending view leaves a job unfinished, and this one is done or failed.
    return this.ctx.store.atomically(() => this.record(entry, kept ?? { failed_reason: why }, view)) as TrackOutcome;
  }

  /** A webhook named this remote job: read it now. */
  hint(remoteId: string): boolean {
    const key = this.byRemoteId.get(remoteId);
    const entry = key === undefined ? undefined : this.watched.get(key);
    if (!entry) return false;
    entry.dueAt = this.ctx.clock.now();
    this.wake?.();
    return true;
  }

  /** Resolves once the polling loop has ended and no read is on the wire any more. */
  async settled(): Promise<void> {
    while (this.loop || this.inFlight.size > 0) {
      await this.loop;
      await Promise.allSettled([...this.inFlight]);
    }
  }

  /** Ends tracking: every waiting job resolves `halted` (it stays in flight for the next run). */
  halt(): void {
    for (const entry of this.watched.values()) entry.resolve('halted');
    this.watched.clear();
    this.wake?.();
  }

  private delay(expected: number, ageMs: number): number {
    return pollDelayMs(expected, ageMs, this.ctx.options.timeScale, this.ctx.random);
  }

  private async run(): Promise<void> {
    while (this.watched.size > 0 && !this.ctx.stop.halted) {
      const next = Math.min(...[...this.watched.values()].map((w) => w.dueAt));
      const wait = next - this.ctx.clock.now();
      if (wait > 0) {
        await this.sleepUntilWoken(wait);
        continue;
      }
      this.pollDue();
    }
    await Promise.all(this.inFlight);
    if (this.ctx.stop.halted) this.halt();
  }

  /** Sleeps `ms` (forever while every job is being read), or until a read lands or a hint arrives. */
  private async sleepUntilWoken(ms: number): Promise<void> {
    const cancel = new AbortController();
    const stop = this.ctx.stop.controller.signal;
    let onStop: () => void = () => undefined;
    await new Promise<void>((resolve) => {
      this.wake = resolve;
      onStop = resolve;
      if (Number.isFinite(ms)) this.ctx.clock.sleep(ms, cancel.signal).then(resolve, resolve);
      stop.addEventListener('abort', onStop, { once: true });
    });
    stop.removeEventListener('abort', onStop);
    this.wake = null;
    cancel.abort();
  }

  /**
   * Starts the reads of every due job without waiting for them: a read held up by the service
   * (a 429's Retry-After) must not hold up the reads of every other job.
   */
  private pollDue(): void {
    const now = this.ctx.clock.now();
    const groups = new Map<string, Watched[]>();
    for (const entry of this.watched.values()) {
      const group = `${entry.job.kind}/${this.ctx.planned.get(entry.job.key)?.mode ?? ''}`;
      groups.set(group, [...(groups.get(group) ?? []), entry]);
    }
    for (const [group, entries] of groups) {
      const due = entries.filter((e) => e.dueAt <= now);
      if (due.length === 0) continue;
      const adapter = due[0]!.adapter;
      if (adapter.listByIds && !this.listRefused.has(group)) {
        // Take along jobs due within half an interval: the same request reads them for free.
        const expected = due[0]!.expected;
        const soon = now + this.delay(expected, expected * 1000 * this.ctx.options.timeScale) / 2;
        this.launch(entries.filter((e) => e.dueAt <= soon), (batch) => this.readByList(group, adapter, batch));
      } else {
        this.launch(due, (batch) => this.readSingly(batch));
      }
    }
  }

  private launch(entries: Watched[], read: (batch: Watched[]) => Promise<void>): void {
    for (const entry of entries) entry.dueAt = Infinity;
    const task: Promise<void> = read(entries)
      .catch(() => undefined)
      .finally(() => {
        // A job whose read failed altogether is simply due again after its interval.
        const now = this.ctx.clock.now();
        for (const entry of entries) if (entry.dueAt === Infinity) entry.dueAt = now + this.delay(entry.expected, now - entry.since);
        this.inFlight.delete(task);
        this.wake?.();
      });
    this.inFlight.add(task);
  }

  private async readByList(group: string, adapter: KindAdapter, entries: Watched[]): Promise<void> {
    for (let i = 0; i < entries.length; i += IDS_PER_LIST) {
      const chunk = entries.slice(i, i + IDS_PER_LIST);
      try {
        await this.ctx.limiter.acquire(this.ctx.stop.controller.signal);
        const items = await adapter.listByIds!(this.ctx.client, chunk.map((e) => e.job.remoteId as string));
        this.reads++;
        this.ctx.limiter.succeeded();
        const byId = new Map(items.map((item) => [String(item.id), item]));
        const listed = chunk.filter((entry) => byId.has(entry.job.remoteId as string));
        this.apply(listed.map((entry) => [entry, byId.get(entry.job.remoteId as string)]));
        // A job the list left out is read on its own: only that read can say it is gone.
        const missing = chunk.filter((entry) => !byId.has(entry.job.remoteId as string));
        if (missing.length > 0) await this.readSingly(missing);
      } catch (error) {
        if (this.ctx.stop.halted) return;
        // Why fall back: the ids filter is beyond the spec for some kinds; a refusal means single reads.
        if ((error as { status?: number }).status !== undefined && (error as { status: number }).status < 500) this.listRefused.add(group);
        await this.readSingly(chunk);
      }
    }
  }

  private async readSingly(entries: Watched[]): Promise<void> {
    const limit = pLimit(this.ctx.options.readConcurrency);
    const results = await Promise.all(
      entries.map((entry) =>
        limit(async (): Promise<[Watched, Resource | undefined]> => {
          if (this.ctx.stop.halted || !entry.adapter.read) return [entry, undefined];
          try {
            await this.ctx.limiter.acquire(this.ctx.stop.controller.signal);
            this.reads++;
            const resource = await entry.adapter.read(this.ctx.client, entry.job.remoteId as string);
            this.ctx.limiter.succeeded();
            return [entry, resource];
          } catch (error) {
            return [entry, error instanceof ApiNotFoundError ? gone(entry, error) : undefined];
          }
        }),
      ),
    );
    this.apply(results);
  }

  /** Commits one batch of answers in one transaction; finished jobs leave the watch list. */
  private apply(answers: [Watched, Resource | undefined][]): void {
    if (this.ctx.stop.halted) return;
    const now = this.ctx.clock.now();
    this.ctx.kill('after-poll');
    const finished: [Watched, TrackOutcome][] = [];
    this.ctx.store.atomically(() => {
      for (const [entry, resource] of answers) {
        entry.dueAt = now + this.delay(entry.expected, now - entry.since);
        if (!resource) continue;
        const outcome = this.record(entry, resource, entry.adapter.view(resource));
        if (outcome) finished.push([entry, outcome]);
      }
    });
    for (const [entry, outcome] of finished) {
      this.watched.delete(entry.job.key);
      if (entry.job.remoteId) this.byRemoteId.delete(entry.job.remoteId);
      entry.resolve(outcome);
    }
  }

  private record(entry: Watched, resource: Resource, view: RemoteView): TrackOutcome | undefined {
    const { job } = entry;
    const store = this.ctx.store;
    if (view.phase === 'pending') {
      if (view.remoteStatus === job.remoteStatus && job.status === 'running') return undefined;
      entry.job = store.transition(job.key, 'running', { remoteStatus: view.remoteStatus, result: resource }, 'job:status', { remoteStatus: view.remoteStatus });
      if (job.status !== 'running') announce(this.ctx, entry.job, view.remoteStatus);
      return undefined;
    }
    const creditsUsed = view.creditsUsed ?? entry.adapter.fixedCredits ?? null;
    const done = view.phase === 'done';
    entry.job = store.transition(job.key, done ? 'done' : 'failed', {
      remoteStatus: view.remoteStatus,
      result: resource,
      creditsUsed,
      // With no reported cost the reservation stays on the row: it is what the ledger counts.
      ...(creditsUsed === null ? {} : { creditsReserved: 0 }),
      failedReason: view.failedReason,
      finishedAt: this.ctx.clock.now(),
    }, done ? 'job:done' : 'job:failed', { remoteStatus: view.remoteStatus, creditsUsed, failedReason: view.failedReason });
    settleCost(this.ctx, job.key, creditsUsed);
    announce(this.ctx, entry.job, view.failedReason ?? undefined);
    return done ? 'done' : 'failed';
  }
}
