import type { CallOptions, ServiceClient } from '../../api/index.js';
import type { OutputMedia } from '../../download/index.js';
import type { StepKind } from '../../step-kinds.js';

/** A remote resource as read, before the adapter interprets it. */
export type Resource = Record<string, unknown>;

/** The run's own view of a remote status: every kind's many state names fold into four. */
export type RemotePhase = 'pending' | 'done' | 'failed' | 'rejected';

/** One file a finished job offers. `url` to fetch, or `inline` text to write (text generation). */
export interface OutputSpec {
  media: OutputMedia;
  url?: string;
  inline?: string;
  /** Tells several files of one job apart: an HTML ad's style, an asset's index. */
  suffix?: string;
  /** Its place among the job's files when that is not its place in this list (an item's: see ItemsOfKind). */
  idx?: number;
}

/** What a remote job made of one item it was asked for. */
export interface ItemOutcome {
  state: 'done' | 'failed';
  url: string | null;
  failedReason: string | null;
}

/**
 * A kind whose job makes several items, each ending on its own (HTML ads: one ad per style). The
 * job is made when every item has been made by one of its attempts; a retry asks only for the rest.
 */
export interface ItemsOfKind {
  /** The items a request asks for, in order. */
  requested(request: Record<string, unknown>): string[];
  /** The request asking for `items` only. */
  withOnly(request: Record<string, unknown>, items: readonly string[]): Record<string, unknown>;
  /** What the remote job made of each of `requested` (`jobReason`: why the whole job failed, if it did). */
  read(resource: Resource, requested: readonly string[], jobReason: string | null): Map<string, ItemOutcome>;
  /** Credits one item costs by the price rule: a failed item's refund, derived. */
  creditsEach: number;
  /** What a made item's file is. */
  media: OutputMedia;
}

/** What a read of the job says, in the run's terms. */
export interface RemoteView {
  phase: RemotePhase;
  remoteStatus: string;
  creditsUsed: number | null;
  failedReason: string | null;
  outputs: OutputSpec[];
}

/**
 * How a kind's in-doubt submission is settled:
 * - `list-window`: list jobs created in a time window and match the intent (lipsync);
 * - `list-all`: list recent jobs and match, filtering the window locally (ad clones);
 * - `resend`: the operation is idempotent (PUT, DELETE), so sending it again is the answer;
 * - `none`: nothing to search; the job is held in doubt for the operator.
 */
export type ReconcileStrategy = 'list-window' | 'list-all' | 'resend' | 'none';

/**
 * How a kind lives:
 * - `tracked`: POST, then read until finished;
 * - `instant`: the creation answer is the finished result (links, voices, deletions);
 * - `lookup`: a free read resolving something for other steps (music); nothing is created.
 */
export type KindMode = 'tracked' | 'instant' | 'lookup';

export interface SubmitInput {
  request: Record<string, unknown>;
  pathId?: string | undefined;
}

/** Everything the runner needs to know about one step kind. */
export interface KindAdapter {
  kind: StepKind;
  mode: KindMode;
  /**
   * Sends the creating (or, for lookups, reading) request; resolves with the resource. `call`
   * carries the job's log fields (CallOptions.log), as on `read`.
   */
  submit(client: ServiceClient, input: SubmitInput, call?: CallOptions): Promise<Resource>;
  /** The id to store and read by; undefined when the kind has none (deletions). */
  remoteIdOf(resource: Resource, input: SubmitInput): string | undefined;
  read?(client: ServiceClient, remoteId: string, call?: CallOptions): Promise<Resource>;
  /** Reads many jobs in one request (at most 100 ids); absent when the service offers no list. */
  listByIds?(client: ServiceClient, ids: readonly string[]): Promise<Resource[]>;
  view(resource: Resource): RemoteView;
  reconcile: ReconcileStrategy;
  /** Jobs created in [after, before) for reconciliation (list-window / list-all). */
  listRecent?(client: ServiceClient, window: { after: string; before: string }, call?: CallOptions): Promise<Resource[]>;
  /**
   * Typical seconds from submission to finish at the live service (behaviour notes' observed
   * durations), which sets how often it is polled.
   */
  typicalSeconds: number;
  /**
   * A 404 to a resent request means the earlier attempt already did the work (a DELETE whose
   * answer was lost): the job is done. Only when an earlier attempt may have reached the service;
   * a first attempt's 404 is a wrong id and fails the job. @default false
   */
  goneMeansDone?: boolean;
  /** Credits when the resource does not carry credits_used (link scraping costs 1, a lookup 0). */
  fixedCredits?: number;
  /** The job makes items that end one by one (HTML ads). @default none */
  items?: ItemsOfKind;
}
