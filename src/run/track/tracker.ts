import pLimit from 'p-limit';
import { ApiNotFoundError } from '../../api/index.js';
import type { JobRow, Written } from '../../state/index.js';
import { adapterFor, type KindAdapter, type RemoteView, type Resource } from '../adapters/index.js';
import { isPendingStatus } from '../adapters/status-maps.js';
import { settleCost } from '../budget/budget-stop.js';
import { expectedSeconds } from './expected-duration.js';
import { lateAfterMs, pollDelayMs, predictedDelayMs } from './poll-schedule.js';
import { failedReadDelayMs, MAX_READ_FAILURES } from './read-failures.js';
import { DurationModel, serviceLifeMs } from './duration-model.js';
import { answerWrite, type Recording } from './answer-write.js';
import { callFor, type RunContext } from '../run-context.js';
import { announce } from '../announce.js';
import { deferred, type Deferred } from '../deferred.js';
import { noteSoon, stopOnLocalFault } from '../local-fault-stop.js';

/**
 * Why a 404 on reading a submitted job fails it: the service answered that the job does not exist
 * (deleted, or made by another environment such as an earlier embedded sandbox). Polling it
 * forever would never finish; the job fails with that reason, and `reelpipe retry` resubmits it.
 */
function gone(entry: Watched, error: ApiNotFoundError): Resource {
  return { status: 'failed', process_status: 'failed', failed_reason: `the service no longer knows job ${entry.job.remoteId}: ${error.message}` };
}

/** How tracking ends for a job the database already has past tracking (no answer moves it back). */
function settledAs(status: JobRow['status']): TrackOutcome {
  if (status === 'done' || status === 'downloaded' || status === 'hook_failed' || status === 'partly_failed') return 'done';
  return status === 'failed' || status === 'rejected' ? 'failed' : 'halted';
}

const NEVER = new Promise<void>(() => undefined);

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
  /** Reads in a row that brought no usable answer (see read-failures.ts). */
  failures: number;
  /** Reads since its predicted end that still found it unfinished (see predictedDelayMs). */
  misses: number;
  /** Resolved when a delivery says the job ended, before a read confirms it (see finishing). */
  finishing: Deferred<void>;
  resolve: (outcome: TrackOutcome) => void;
}

/** A read's result: the resource, an error saying why there is none, or nothing (the run halted). */
type Answer = [Watched, Resource | Error | undefined];

/**
 * How tracking a job ended: finished one way or the other, stopped by the run, or left unread
 * for the next run after too many failed reads.
 */
export type TrackOutcome = 'done' | 'failed' | 'halted' | 'unread';

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
  private readonly model = new DurationModel();
  reads = 0;

  constructor(private readonly ctx: RunContext) {}

  /** Tracks `job` until it finishes; the promise says how it ended. */
  track(job: JobRow): Promise<TrackOutcome> {
    const adapter = adapterFor(job.kind, this.ctx.planned.get(job.key)?.mode);
    if (!adapter.read) return this.unreadable(job, adapter);
    const now = this.ctx.clock.now();
    return new Promise((resolve) => {
      const since = job.submittedAt ?? now;
      const expected = expectedSeconds(this.ctx.planned.get(job.key), adapter.typicalSeconds);
      const entry: Watched = { job, adapter, since, expected, failures: 0, misses: 0, finishing: deferred<void>(), resolve, dueAt: Infinity };
      entry.dueAt = now + this.delay(entry, now);
      this.watched.set(job.key, entry);
      if (job.remoteId) this.byRemoteId.set(job.remoteId, job.key);
      this.ensureLoop();
      this.wake?.();
    });
  }

  /**
   * Runs the polling loop while jobs are watched. Why it restarts itself: a job can be handed
   * over while the loop is winding down (its last reads settling); without the restart, that job
   * would wait forever with nobody reading it.
   */
  private ensureLoop(): void {
    this.loop ??= this.run().finally(() => {
      this.loop = null;
      if (this.watched.size > 0 && !this.ctx.stop.halted) this.ensureLoop();
    });
  }

  /**
   * Policy: a job whose kind cannot be read is never polled (it would be polled forever, holding
   * the run and its lock). A kind finished at creation with its answer on the row is done with
   * that answer; anything else fails with the reason, naming the remote id to check by hand.
   */
  private async unreadable(job: JobRow, adapter: KindAdapter): Promise<TrackOutcome> {
    const kept = adapter.mode === 'instant' && job.result ? job.result : undefined;
    const why = `${job.kind} jobs cannot be read, so ${job.remoteId ?? 'this job'} cannot be tracked; check it at the service before \`reelpipe retry\``;
    const view: RemoteView = kept
      ? { ...adapter.view(kept), phase: 'done' }
      : { phase: 'failed', remoteStatus: job.remoteStatus ?? 'unreadable', creditsUsed: null, failedReason: why, outputs: [] };
    const entry: Watched = { job, adapter, dueAt: Infinity, since: job.submittedAt ?? this.ctx.clock.now(), expected: 0, failures: 0, misses: 0, finishing: deferred<void>(), resolve: () => undefined };
    const now = this.ctx.clock.now();
    const recording = answerWrite(job, this.ctx.planned.get(job.key), adapter, { resource: kept ?? { failed_reason: why }, view, at: now });
    // Never undefined: only a pending view leaves a job unfinished, and this one is done or failed.
    return this.recorded(entry, recording, await this.ctx.store.write(recording.write!), now) as TrackOutcome;
  }

  /**
   * A webhook named this remote job: read it now. Policy: a job has at most one read on the wire
   * (Infinity marks it), so a hint for a job being read, or already due, adds nothing — a second
   * read could answer after the first and carry a stale state.
   */
  hint(remoteId: string, status?: string): boolean {
    const key = this.byRemoteId.get(remoteId);
    const entry = key === undefined ? undefined : this.watched.get(key);
    if (!entry) return false;
    // A delivery of a state still under way (in_queue, running…) changes nothing a read would.
    if (isPendingStatus(status)) return true;
    // The service says the job ended: its capacity is free, so its slot goes to the next job now.
    entry.finishing.resolve();
    const now = this.ctx.clock.now();
    // Its read now only confirms (and fetches the outputs' links): deliveries of jobs finishing
    // together are gathered into one list read.
    const gathered = now + this.gatherMs(entry);
    if (entry.dueAt === Infinity || entry.dueAt <= gathered) return true;
    entry.dueAt = gathered;
    this.wake?.();
    return true;
  }

  /**
   * How long deliveries are gathered before their confirming read: a tenth of the job's life (at
   * least 2 ms). Why that long: the delivery has already freed the job's slot, so the read holds
   * up no new job, only this one's download; a longer gathering reads more jobs per request.
   */
  private gatherMs(entry: Watched): number {
    const life = this.lifeMs(entry);
    return Math.max(2, (life.predicted ?? life.modelled) * 0.1);
  }

  /** Resolves when a delivery says `key`'s job ended, before any read confirms it (never, without webhooks). */
  finishing(key: string): Promise<void> {
    return this.watched.get(key)?.finishing.promise ?? NEVER;
  }

  /** The job's modelled life and, once its step's pace is known, its predicted one (ms, scaled). */
  private lifeMs(entry: Watched): { modelled: number; predicted: number | undefined } {
    const modelled = entry.expected * 1000 * this.ctx.options.timeScale;
    return { modelled, predicted: this.model.predict(entry.job.step, modelled) };
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

  /** The wait before `entry`'s next read: at its predicted end once its step's pace is known, else by its modelled life. */
  private delay(entry: Watched, now: number): number {
    const ageMs = now - entry.since;
    const ordinaryMs = pollDelayMs(entry.expected, ageMs, this.ctx.options.timeScale, this.ctx.random);
    const { predicted } = this.lifeMs(entry);
    if (predicted === undefined) return ordinaryMs;
    return predictedDelayMs({ predictedMs: predicted, ageMs, misses: entry.misses, webhooks: this.ctx.webhooks !== null, ordinaryMs });
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
        const soon = now + this.takeAlongMs(due[0]!);
        this.launch(entries.filter((e) => e.dueAt <= soon), (batch) => this.readByList(group, adapter, batch));
      } else {
        this.launch(due, (batch) => this.readSingly(batch));
      }
    }
  }

  /**
   * Jobs due this soon ride along in a list read (the same request reads them for free): 3 % of
   * the job's predicted life once its step's pace is known — more would read jobs not yet finished,
   * which then cost a read of their own — else half an interval of the ordinary cadence.
   */
  private takeAlongMs(entry: Watched): number {
    const { modelled, predicted } = this.lifeMs(entry);
    if (predicted !== undefined) return predicted * 0.03;
    return pollDelayMs(entry.expected, modelled, this.ctx.options.timeScale, this.ctx.random) / 2;
  }

  private launch(entries: Watched[], read: (batch: Watched[]) => Promise<void>): void {
    for (const entry of entries) entry.dueAt = Infinity;
    const task: Promise<void> = read(entries)
      .catch((error: unknown) => void stopOnLocalFault(this.ctx, error))
      .finally(() => {
        // A job whose read failed altogether is simply due again after its interval.
        const now = this.ctx.clock.now();
        for (const entry of entries) if (entry.dueAt === Infinity) entry.dueAt = now + this.delay(entry, now);
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
        await this.apply(listed.map((entry) => [entry, byId.get(entry.job.remoteId as string)]));
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
        limit(async (): Promise<Answer> => {
          if (this.ctx.stop.halted || !entry.adapter.read) return [entry, undefined];
          try {
            await this.ctx.limiter.acquire(this.ctx.stop.controller.signal);
            this.reads++;
            // A single read is for one job: its log line names it.
            const resource = await entry.adapter.read(this.ctx.client, entry.job.remoteId as string, callFor(this.ctx, entry.job.key));
            this.ctx.limiter.succeeded();
            return [entry, resource];
          } catch (error) {
            if (error instanceof ApiNotFoundError) return [entry, gone(entry, error)];
            return [entry, this.ctx.stop.halted ? undefined : error instanceof Error ? error : new Error(String(error))];
          }
        }),
      ),
    );
    await this.apply(results);
  }

  /**
   * Commits one batch of answers in one transaction; finished jobs leave the watch list. Each
   * answer's write moves its job only while the database still has it in flight (IN_FLIGHT):
   * whatever moved it on (a finish already recorded, a download) is newer, and no state goes back.
   */
  private async apply(answers: Answer[]): Promise<void> {
    if (this.ctx.stop.halted) return;
    const now = this.ctx.clock.now();
    this.ctx.kill('after-poll');
    const finished: [Watched, TrackOutcome][] = [];
    const recordings: [Watched, Recording][] = [];
    for (const [entry, resource] of answers) {
      if (resource instanceof Error) {
        if (this.readFailed(entry, resource, now, this.delay(entry, now))) finished.push([entry, 'unread']);
      } else if (resource) {
        entry.failures = 0;
        recordings.push([entry, answerWrite(entry.job, this.ctx.planned.get(entry.job.key), entry.adapter, { resource, view: entry.adapter.view(resource), at: now })]);
      } else {
        entry.dueAt = now + this.delay(entry, now);
      }
    }
    const written = await this.ctx.store.writeAll(recordings.flatMap(([, r]) => (r.write ? [r.write] : [])));
    let next = 0;
    for (const [entry, recording] of recordings) {
      const outcome = recording.write ? this.recorded(entry, recording, written[next++]!, now) : undefined;
      if (outcome) {
        finished.push([entry, outcome]);
        continue;
      }
      // Still under way once late (lateAfterMs): the next read waits longer (predictedDelayMs).
      // With webhooks a job taken along in a list read before then is not late, its delivery is still to come.
      const { predicted } = this.lifeMs(entry);
      if (predicted !== undefined && now - entry.since >= lateAfterMs(predicted, this.ctx.webhooks !== null)) entry.misses++;
      entry.dueAt = now + this.delay(entry, now);
    }
    for (const [entry, outcome] of finished) {
      this.watched.delete(entry.job.key);
      if (entry.job.remoteId) this.byRemoteId.delete(entry.job.remoteId);
      entry.resolve(outcome);
    }
  }

  /**
   * A read brought no usable answer: read again after a growing wait; said at the first failure,
   * and after MAX_READ_FAILURES in a row the job is left for the next run (returns true).
   */
  private readFailed(entry: Watched, error: Error, now: number, usualMs: number): boolean {
    entry.failures++;
    const { key, step } = entry.job;
    const giveUp = entry.failures >= MAX_READ_FAILURES;
    if (entry.failures === 1 || giveUp) {
      const message = giveUp
        ? `${entry.failures} reads in a row failed (${error.message}); not read again in this run, the next run reads it again`
        : `reading it failed (${error.message}); reading again with a growing wait`;
      noteSoon(this.ctx, 'job:read-failed', key, { message, failures: entry.failures, giveUp });
      this.ctx.events.emit('job:read-failed', { key, step, message, giveUp });
    }
    entry.dueAt = now + failedReadDelayMs(usualMs, entry.failures, this.ctx.options.timeScale);
    return giveUp;
  }

  /** After the answer's write: how tracking the job ends (undefined: still under way). */
  private recorded(entry: Watched, recording: Recording, written: Written, now: number): TrackOutcome | undefined {
    if (!written.moved) return settledAs(written.row.status);
    const row = (entry.job = written.row);
    const { view, resource } = recording;
    if (!recording.ended) {
      if (!recording.wasRunning) announce(this.ctx, row, view.remoteStatus);
      return undefined;
    }
    this.model.observe(row.step, this.lifeMs(entry).modelled, serviceLifeMs(resource) ?? now - entry.since);
    settleCost(this.ctx, row.key, recording.creditsUsed ?? null);
    announce(this.ctx, row, view.failedReason ?? undefined);
    return view.phase === 'done' ? 'done' : 'failed';
  }
}
