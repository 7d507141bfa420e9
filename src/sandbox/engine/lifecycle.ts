import type { Clock } from '../../util/clock.js';
import type { Job } from '../store.js';
import { EventQueue } from './event-queue.js';

/**
 * The life-cycle engine: a discrete-event simulation of every job, driven by the injected Clock.
 *
 *   start ─► phase 0 ─► phase 1 ─► … ─► end
 *
 * - A job shows its current phase's `status`. A phase lasts `ms` (already divided by the speed).
 * - A phase marked `slot` needs a render slot. Without a free one the job waits, showing its kind's
 *   `queueStatus` (in_queue for video jobs, else its current status), first come first served.
 *   The slot is held until the plan ends, then handed at that same instant to the first waiter.
 * - At the end the job shows `end.status`. A resting end (product image_generated, a template
 *   preview) waits for a further operation to continue it with a new plan; any other end is final.
 * - `progress` runs 0 → 100 over the whole walk and never goes back: a resting plan covers
 *   0 → `restProgress`, and the plan that continues it runs on from there to 100.
 * - `advance()` applies every event due by clock.now() in time order, each at its own time, so the
 *   state is exact whenever it is read, however rarely; a background pump sleeps on the Clock until
 *   the next event so webhooks go out on time without reads.
 */
export interface Phase {
  status: string;
  ms: number;
  slot?: boolean;
  /** Runs when the phase starts, just before its status is reported: e.g. credits_used filled in. */
  enter?: (job: Job, at: number) => void;
  /** Runs when the phase ends: e.g. a preview becomes ready. */
  leave?: (job: Job, at: number) => void;
}

export interface Plan {
  phases: Phase[];
  /** Status shown while waiting for a slot. @default the current status */
  queueStatus?: string;
  /**
   * Progress (0–100) a resting end shows: the share of the whole walk done before the rest.
   * @default 50
   */
  restProgress?: number;
  /** The end state; a function decides it when the outcome is known only then (HTML ads). */
  end: { status: string | ((job: Job) => string); rest?: boolean; enter?: (job: Job, at: number) => void };
}

export interface Timeline {
  plan: Plan;
  index: number;
  phaseStart: number;
  doneMs: number;
  totalMs: number;
  holdsSlot: boolean;
  waiting: boolean;
  state: 'active' | 'resting' | 'final';
  token: number;
  /** The progress range this plan covers: from where the walk stood to its rest or to 100. */
  from: number;
  to: number;
}

export type TransitionListener = (job: Job, from: string, to: string, at: number) => void;

export class LifecycleEngine {
  private readonly events = new EventQueue<{ job: Job; token: number }>();
  private readonly waiting: Job[] = [];
  private busy = 0;
  private tokens = 0;
  private wake: AbortController | undefined;
  private wakeAt = Infinity;
  private closed = false;
  private paused = false;
  /** Jobs alive now: started, not yet at their end or a rest (in a slot or waiting for one). */
  private live = 0;
  /** The most jobs ever alive at once: what a test of a client's concurrency limit reads. */
  private peak = 0;

  constructor(
    private readonly clock: Clock,
    private readonly capacity: number,
    private readonly onTransition: TransitionListener,
  ) {}

  /** Starts (or, for a resting job, continues) a job on a plan, from now. */
  start(job: Job, plan: Plan): void {
    const totalMs = plan.phases.reduce((sum, phase) => sum + phase.ms, 0);
    const from = job.timeline?.state === 'resting' ? job.timeline.to : 0;
    if (job.timeline?.state !== 'active') this.peak = Math.max(this.peak, ++this.live);
    const to = plan.end.rest ? Math.max(from, plan.restProgress ?? 50) : 100;
    job.timeline = {
      plan, index: 0, phaseStart: this.clock.now(), doneMs: 0, totalMs, holdsSlot: false, waiting: false, state: 'active',
      token: ++this.tokens, from, to,
    };
    this.enterPhase(job, this.clock.now());
    this.advance();
  }

  /** Stops a job for good (a deleted avatar): its events are ignored and its slot is freed. */
  cancel(job: Job): void {
    const timeline = job.timeline;
    if (!timeline) return;
    if (timeline.state === 'active') this.live -= 1;
    timeline.token = -1;
    timeline.state = 'final';
    const at = this.waiting.indexOf(job);
    if (at >= 0) this.waiting.splice(at, 1);
    this.releaseSlot(job, this.clock.now());
  }

  /** Applies every event due by now, each at its own time. */
  advance(): void {
    const now = this.clock.now();
    for (let due = this.events.popDue(now); due; due = this.events.popDue(now)) {
      const { job, token } = due.value;
      const timeline = job.timeline;
      if (!timeline || timeline.token !== token) continue;
      const phase = timeline.plan.phases[timeline.index]!;
      phase.leave?.(job, due.at);
      timeline.doneMs += phase.ms;
      timeline.index += 1;
      timeline.phaseStart = due.at;
      this.enterPhase(job, due.at);
    }
    this.pump();
  }

  /** Jobs alive at the service now and at most at once so far (started, not yet ended or resting). */
  get alive(): { now: number; peak: number } {
    return { now: this.live, peak: this.peak };
  }

  /** Progress through the whole walk, 0 to 100: below `to` while working, `to` at a rest, 100 at the end. */
  progress(job: Job): number {
    const t = job.timeline;
    if (!t || t.state === 'final') return 100;
    if (t.state === 'resting') return t.to;
    if (t.totalMs <= 0) return t.from;
    const phase = t.plan.phases[t.index];
    const inPhase = phase && !t.waiting ? Math.min(this.clock.now() - t.phaseStart, phase.ms) : 0;
    const share = Math.floor(((t.doneMs + inPhase) / t.totalMs) * (t.to - t.from));
    return Math.max(t.from, Math.min(t.to - 1, t.from + share));
  }

  /** Holds the background pump (while a journal is replayed on a clock set to past instants). */
  pause(): void {
    this.paused = true;
  }

  /** Lets the pump run again and applies everything due by now. */
  resume(): void {
    this.paused = false;
    this.advance();
  }

  /** Stops the background pump. */
  close(): void {
    this.closed = true;
    this.wake?.abort();
  }

  private enterPhase(job: Job, at: number): void {
    const t = job.timeline!;
    const phase = t.plan.phases[t.index];
    if (!phase) return this.finish(job, at);
    if (phase.slot && !t.holdsSlot) {
      if (this.busy >= this.capacity) {
        t.waiting = true;
        this.waiting.push(job);
        return this.setStatus(job, t.plan.queueStatus ?? job.status, at);
      }
      this.busy += 1;
      t.holdsSlot = true;
    }
    t.waiting = false;
    t.phaseStart = at;
    phase.enter?.(job, at);
    this.setStatus(job, phase.status, at);
    this.events.push(at + phase.ms, { job, token: t.token });
  }

  private finish(job: Job, at: number): void {
    const t = job.timeline!;
    if (t.state === 'active') this.live -= 1;
    t.state = t.plan.end.rest ? 'resting' : 'final';
    const { status, enter } = t.plan.end;
    const final = typeof status === 'function' ? status(job) : status;
    enter?.(job, at); // outputs and failure reasons first, so the status change reports them
    this.setStatus(job, final, at);
    this.releaseSlot(job, at);
  }

  private releaseSlot(job: Job, at: number): void {
    const t = job.timeline!;
    if (!t.holdsSlot) return;
    t.holdsSlot = false;
    this.busy -= 1;
    const next = this.waiting.shift();
    if (next) {
      next.timeline!.phaseStart = at;
      this.enterPhase(next, at);
    }
  }

  private setStatus(job: Job, status: string, at: number): void {
    if (job.status === status && job.history.length > 0) return;
    const from = job.status;
    job.status = status;
    job.updatedAt = at;
    job.history.push({ status, at });
    this.onTransition(job, from, status, at);
  }

  /** Sleeps on the Clock until the next event, then advances; re-armed when an earlier one comes. */
  private pump(): void {
    const next = this.events.peekTime();
    if (this.closed || this.paused || next === undefined || next >= this.wakeAt) return;
    this.wake?.abort();
    const controller = new AbortController();
    this.wake = controller;
    this.wakeAt = next;
    this.clock.sleep(Math.max(0, next - this.clock.now()), controller.signal).then(
      () => {
        if (this.wake !== controller) return;
        this.wakeAt = Infinity;
        this.wake = undefined;
        this.advance();
      },
      () => undefined,
    );
  }
}
