import { createHash } from 'node:crypto';

/**
 * How long a media file at a URL lasts. The sandbox never downloads inputs, yet prices and
 * durations depend on the length of reference videos, input videos and audio. The rule, in order:
 * 1. a media fragment `#t=SECONDS` (or `#t=START,END`, lasting END − START);
 * 2. a query parameter `duration=SECONDS`;
 * 3. otherwise a whole number of seconds in [min, max], chosen by a hash of (seed, URL): the same
 *    URL always has the same length within one seed.
 */
export function mediaSeconds(url: string, seed: number, range: { min: number; max: number }): number {
  const stated = statedSeconds(url);
  if (stated !== undefined) return stated;
  const digest = createHash('sha256').update(`${seed}:${url}`).digest();
  return range.min + (digest.readUInt32LE(0) % (range.max - range.min + 1));
}

function statedSeconds(url: string): number | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const fragment = /(?:^#|&)t=([\d.]+)(?:,([\d.]+))?/.exec(parsed.hash);
  if (fragment) {
    const start = Number(fragment[1]);
    const end = fragment[2] === undefined ? undefined : Number(fragment[2]);
    const seconds = end === undefined ? start : end - start;
    if (Number.isFinite(seconds) && seconds > 0) return seconds;
  }
  const query = Number(parsed.searchParams.get('duration') ?? NaN);
  return Number.isFinite(query) && query > 0 ? query : undefined;
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
