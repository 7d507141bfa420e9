import { createHash } from 'node:crypto';
import { statedSeconds } from '../pricing/stated-length.js';

/**
 * How long a media file at a URL lasts. The sandbox never downloads inputs, yet prices and
 * durations depend on the length of reference videos, input videos and audio. The rule, in order:
 * 1. the length the URL states (src/pricing/stated-length.ts: `#t=START,END` or `?duration=…`);
 * 2. otherwise a whole number of seconds in [min, max], chosen by a hash of (seed, URL): the same
 *    URL always has the same length within one seed.
 */
export function mediaSeconds(url: string, seed: number, range: { min: number; max: number }): number {
  const stated = statedSeconds(url);
  if (stated !== undefined) return stated;
  const digest = createHash('sha256').update(`${seed}:${url}`).digest();
  return range.min + (digest.readUInt32LE(0) % (range.max - range.min + 1));
}

/** Default lengths when a URL states none. Why these: typical short-form ad material. */
export const DEFAULT_LENGTHS = {
  /** An AI Editing input video. */
  inputVideo: { min: 15, max: 60 },
  /** A Boreal-H3 reference video. */
  referenceVideo: { min: 3, max: 15 },
  /** A Boreal driving audio track. */
  drivingAudio: { min: 5, max: 30 },
  /** An ad clone's reference ad. */
  referenceAd: { min: 15, max: 45 },
} as const;
