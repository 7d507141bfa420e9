import { createHash } from 'node:crypto';
import { seededRandom, type Random } from '../util/random.js';
import { LifecycleEngine, type Plan } from './engine/lifecycle.js';
import { OperationClock } from './engine/operation-clock.js';
import { shortfallPlan } from './engine/plans.js';
import { Faults } from './faults/injector.js';
import type { FaultName } from './faults/profile.js';
import { HttpError } from './http/reply.js';
import type { JournalFile } from './journal/journal-file.js';
import type { OperationScope } from './journal/operation.js';
import { Ledger } from './ledger.js';
import type { ResolvedOptions } from './options.js';
import { Cdn } from './outputs/cdn.js';
import { StatsRecorder } from './stats.js';
import { JobStore, type Family, type Job } from './store.js';
import { Webhooks } from './webhooks.js';

/** Builds the webhook payload for a status change, or nothing when this change is not reported. */
export type WebhookPolicy = (job: Job, to: string) => Record<string, unknown> | undefined;

/** A job to create: what it is, what it costs, and how it lives. */
export interface NewJob {
  family: Family;
  kind: string;
  /** The request path, part of the duplicate key (regen of task A is not a duplicate of B's). */
  path: string;
  request: Record<string, unknown>;
  fields: Record<string, unknown>;
  price: number;
  webhookUrl?: string | null | undefined;
  /** The life cycle; omitted for records that have none (links, voices). */
  plan?: (job: Job) => Plan;
  /** Status of a record without a plan. @default 'done' */
  status?: string;
}

/** A further priced step of an existing job: what it is, what it costs, and how the job goes on. */
export interface Continuation {
  kind: string;
  path: string;
  request: Record<string, unknown>;
  price: number;
  webhookUrl?: string | null | undefined;
  /** Fields the step sets on the job once it is accepted (a new video prompt). */
  fields?: Record<string, unknown>;
  plan: (job: Job) => Plan;
}

/**
 * Everything the sandbox holds, shared by the resource handlers: the clock, jobs, life cycles,
 * credits, outputs, webhooks, faults and counters.
 */
export class SandboxCore {
  readonly store = new JobStore();
  readonly ledger: Ledger;
  readonly stats = new StatsRecorder();
  readonly faults: Faults;
  readonly cdn: Cdn;
  readonly webhooks: Webhooks;
  readonly engine: LifecycleEngine;
  readonly webhookPolicies: Partial<Record<Family, WebhookPolicy>> = {};
  readonly clock: OperationClock;
  /** The journal, when the sandbox is durable; every state-changing operation is appended to it. */
  journal: JournalFile | undefined;
  /** The decisions of the state-changing operation being answered or replayed. */
  scope: OperationScope | undefined;
  /** Transitions before this instant happened before this process started: no webhook for them. */
  private readonly quietBefore: number;
  private idRandom: Random;
  private readonly knownIds = new Set<string>();

  constructor(readonly options: ResolvedOptions) {
    this.clock = new OperationClock(options.clock);
    this.quietBefore = options.clock.now();
    this.ledger = new Ledger(options.credits);
    this.faults = new Faults(options.faults, options.seed);
    const secret = createHash('sha256').update(`reelpipe-sandbox:${options.seed}`).digest('hex');
    this.cdn = new Cdn(this.clock, options.outputTtlSeconds, this.faults, secret);
    this.webhooks = new Webhooks(this.faults, options.allowAnyWebhookHost, options.logger);
    this.engine = new LifecycleEngine(this.clock, options.capacity, (job, from, to, at) => this.transition(job, from, to, at));
    this.idRandom = seededRandom(options.seed);
  }

  now(): number {
    return this.clock.now();
  }

  /** A service duration in seconds, as milliseconds of sandbox time (÷ speed). */
  ms(seconds: number): number {
    return (seconds * 1000) / this.options.speed;
  }

  /** A version-4 UUID from the seeded stream (same seed, same ids), or the journalled one in a replay. */
  newId(): string {
    return this.scope ? this.scope.id(() => this.freshId()) : this.freshId();
  }

  /**
   * After a replay: ids go on from a stream seeded by (seed, number of journalled operations), and
   * an id the journal already holds is never handed out again. Why not the seed alone: a restarted
   * sandbox would hand out the first ids again, and a client's records would collide.
   */
  resumeIds(operations: number, journalled: Iterable<string>): void {
    for (const id of journalled) this.knownIds.add(id);
    if (operations === 0) return;
    const digest = createHash('sha256').update(`reelpipe-sandbox-ids:${this.options.seed}:${operations}`).digest();
    this.idRandom = seededRandom(digest.readUInt32LE(0));
  }

  /** An id that exists without having been handed out (a fixture's): never handed out either. */
  reserveId(id: string): void {
    this.knownIds.add(id);
  }

  /** Whether a fault decided when a job is made happens: drawn live (and journalled), or as journalled. */
  decide(name: FaultName): boolean {
    return this.scope ? this.scope.draw(name, () => this.faults.draw(name)) : this.faults.draw(name);
  }

  private freshId(): string {
    let id = this.uuid();
    while (this.knownIds.has(id)) id = this.uuid();
    this.knownIds.add(id);
    return id;
  }

  private uuid(): string {
    const bytes = Array.from({ length: 16 }, () => Math.floor(this.idRandom() * 256));
    bytes[6] = (bytes[6]! & 0x0f) | 0x40;
    bytes[8] = (bytes[8]! & 0x3f) | 0x80;
    const hex = bytes.map((b) => b.toString(16).padStart(2, '0')).join('');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }

  /**
   * Creates a job: checks the balance, charges the whole price at once (so concurrent creations
   * cannot overspend), counts it, and starts its life cycle.
   */
  create(spec: NewJob): Job {
    const now = this.now();
    // Why a record without a life cycle (a scraped link) is refused even in `fail` mode: it has
    // no state in which it could fail, and handing it out unpaid would make it free.
    const short = this.shortOf(spec.price, spec.plan === undefined);
    const job: Job = {
      id: this.newId(), family: spec.family, kind: spec.kind, createdAt: now, updatedAt: now,
      status: spec.plan ? '' : (spec.status ?? 'done'), request: spec.request, fields: spec.fields, price: spec.price,
      charged: 0, creditsUsed: 0, files: {}, webhookUrl: spec.webhookUrl ?? null, history: [],
    };
    if (!spec.plan) job.history.push({ status: job.status, at: now });
    this.store.add(job);
    this.stats.creation(spec.kind, spec.path, spec.request, job);
    if (!short) this.ledger.charge(job, spec.price);
    const plan = spec.plan && (short ? shortfallPlan(spec.plan(job)) : spec.plan(job));
    this.scope?.job(spec.kind, job.id, spec.price, plan);
    if (plan) this.engine.start(job, plan);
    return job;
  }

  /**
   * Continues a resting job with a further priced step (product gen_video, template render),
   * exactly as a creation is made: the balance is checked in the configured mode, the step is
   * counted and charged, and its plan (with its fault draws) starts from now.
   */
  continue(job: Job, step: Continuation): void {
    const short = this.shortOf(step.price, false);
    this.stats.creation(step.kind, step.path, step.request, job);
    if (!short) this.ledger.charge(job, step.price);
    Object.assign(job.fields, step.fields);
    if (step.webhookUrl) job.webhookUrl = step.webhookUrl;
    const plan = short ? shortfallPlan(step.plan(job)) : step.plan(job);
    this.scope?.job(step.kind, job.id, step.price, plan);
    this.engine.start(job, plan);
  }

  /** Whether the balance falls short of `price`; in `refuse` mode (or `alwaysRefuse`) a 402 instead. */
  private shortOf(price: number, alwaysRefuse: boolean): boolean {
    const short = !this.ledger.canCover(price);
    if (short && (alwaysRefuse || this.options.insufficientCredits === 'refuse')) this.requireCredits(price);
    return short;
  }

  /**
   * Refuses a request the balance cannot pay for. Why 402: the live service's code is unknown
   * (behaviour notes); a distinct 4xx with a `detail` lets a client stop submitting at once.
   */
  private requireCredits(price: number): void {
    if (this.ledger.canCover(price)) return;
    throw new HttpError(402, {
      detail: `Insufficient credits: this request costs ${price} credits and the balance is ${this.ledger.balance}.`,
    });
  }

  /**
   * Reports a status change by webhook when the job asked for one and its family reports it.
   * Changes dated before this process started (replayed from the journal, or caught up after a
   * restart) are not reported: the earlier process sent what it lived to send, and a client that
   * was down with it polls.
   */
  private transition(job: Job, from: string, to: string, at: number): void {
    if (from === '' || !job.webhookUrl || at < this.quietBefore) return;
    const payload = this.webhookPolicies[job.family]?.(job, to);
    if (payload) this.webhooks.notify(job.id, job.webhookUrl, payload);
  }
}
