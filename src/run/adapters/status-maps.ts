import type { RemotePhase } from './types.js';

/**
 * Every kind's status vocabulary folded into the run's four phases (a rejected job is not a failed
 * one: the service refused it, at its review, and the operator fixes the input rather than retrying). Why keep unknown names as
 * `pending`: a status the spec does not list (a new intermediate state) must not end tracking or
 * fail a job; the poll goes on until a known end arrives.
 */
export type StatusMap = Readonly<Record<string, RemotePhase>>;

/** AI Shorts, AI Editing, Boreal, ad clones, lipsync, custom template jobs. */
export const VIDEO_JOB_PHASES: StatusMap = {
  pending: 'pending',
  in_queue: 'pending',
  running: 'pending',
  done: 'done',
  failed: 'failed',
  rejected: 'rejected',
};

/** HTML ads and text generation. */
export const SIMPLE_PHASES: StatusMap = { pending: 'pending', running: 'pending', done: 'done', failed: 'failed' };

export const ASSET_PHASES: StatusMap = { initializing: 'pending', generating: 'pending', done: 'done', failed: 'failed' };

/** Product to video: only `video_generated` carries the video. */
export const PRODUCT_PHASES: StatusMap = {
  initializing: 'pending',
  image_generating: 'pending',
  image_generated: 'pending',
  video_generating: 'pending',
  video_generated: 'done',
  failed: 'failed',
};

export const PERSONA_PHASES: StatusMap = {
  pending: 'pending',
  processing: 'pending',
  voice_creating: 'pending',
  video_validating: 'pending',
  crop_and_matte: 'pending',
  reviewing: 'pending',
  done: 'done',
  failed: 'failed',
  rejected: 'rejected',
};

export function phaseOf(map: StatusMap, status: unknown): RemotePhase {
  return typeof status === 'string' ? (map[status] ?? 'pending') : 'pending';
}

/**
 * Every status name some kind uses for a job still under way. A webhook delivery naming one says
 * nothing a read is needed for: only a delivery of an end (or of a status nobody lists) is.
 */
const PENDING_STATUSES = new Set(
  [VIDEO_JOB_PHASES, SIMPLE_PHASES, ASSET_PHASES, PRODUCT_PHASES, PERSONA_PHASES].flatMap((map) => Object.keys(map).filter((status) => map[status] === 'pending')),
);

export function isPendingStatus(status: string | undefined): boolean {
  return status !== undefined && PENDING_STATUSES.has(status);
}
