import type { AttemptEnd } from '../attempt-records.js';
import type { EventType } from '../sqlite/events.js';

/**
 * What the operations planned in one round of a wave will write, gathered by kind so each kind
 * goes as one multi-row statement (pg-emit.ts). Every row names its job (`key`); a round holds at
 * most one operation per job, so no two rows of one kind touch the same record. Column names are
 * the tables' own: each list is sent as JSON and read with `jsonb_to_recordset`.
 */
export interface Parts {
  /** Attempts opened (an intent before its POST), in the order planned. */
  intents: { key: string; request: string; hook_token: string | null }[];
  /** Attempts closed: by id, or (`id` null) the job's newest while it is an open intent. `nothing`: it provably created nothing. */
  closes: { key: string; id: number | null; state: string; remote_id: string | null; error: string | null; nothing: boolean }[];
  items: ItemPart[];
  refunds: { key: string; remote_id: string; credits: number; derived: number }[];
  /** Jobs whose settled charges lapse as `retried` (planned again). */
  lapses: string[];
  /** Jobs whose newest attempt this run retried automatically. */
  retried: string[];
  /** Links of files already recorded at their place (`keep`: the same file, its download kept). */
  relinked: { key: string; idx: number; url: string; keep: boolean }[];
  linked: { key: string; idx: number; url: string }[];
  unlinked: { key: string; idx: number }[];
  downloads: { key: string; idx: number; path: string; bytes: number; sha256: string; content_type: string; stat_stamp: string }[];
  verified: { key: string; idx: number; stat_stamp: string }[];
  moves: MovePart[];
  /** A job's last read replaced (`result` null: removed). */
  results: { key: string; result: string | null }[];
  /** How the newest attempt of a job ended. */
  ends: { key: string; ended: AttemptEnd; reason: string | null }[];
  /** The job's open charge: its reservation, its remote id, or its settlement. */
  charges: { key: string; reserved: number | null; remote_id: string | null; settle: boolean; charged: number | null }[];
  events: EventPart[];
}

export interface ItemPart {
  key: string;
  idx: number;
  item: string;
  state: string;
  failed_reason: string | null;
  attempt_id: number | null;
  remote_id: string | null;
  url: string | null;
  refunded: number;
  refund_derived: number;
}

/** A job's move: its new status and the columns set with it (`sets` names them; the others stay). */
export interface MovePart {
  key: string;
  status: string;
  sets: string[];
  /** 1 for an intent: the job's attempt count grows with the attempt it opens. */
  bump: number;
  /** The last read moves to job_results (the old jobs.result is emptied). */
  clear_result: boolean;
  [column: string]: unknown;
}

export interface EventPart {
  key: string | null;
  type: EventType;
  data: Record<string, unknown> | undefined;
  /** The attempt id the event names (`data.attempt`): the intent of this job opened in the same round. */
  attemptOf?: string;
}

export function noParts(): Parts {
  return {
    intents: [], closes: [], items: [], refunds: [], lapses: [], retried: [], relinked: [], linked: [], unlinked: [], downloads: [], verified: [],
    moves: [], results: [], ends: [], charges: [], events: [],
  };
}

/** Adds what `draft` planned to `into` (an operation's parts join the round's once it planned whole). */
export function addParts(into: Parts, draft: Parts): void {
  for (const name of Object.keys(into) as (keyof Parts)[]) (into[name] as unknown[]).push(...(draft[name] as unknown[]));
}
