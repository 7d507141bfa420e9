import type { Random } from '../util/random.js';

/** Bounds of a poll interval at time scale 1. */
export const POLL_BOUNDS = { minMs: 2_000, maxMs: 600_000 } as const;
/** Never poll faster than this, however far the time scale shrinks intervals. */
const FLOOR_MS = 20;

/**
 * The wait before the next read of a job.
 *
 * Policy: a sixth of the kind's typical duration, so a job is seen finished soon after it is
 * (a minute-long AI Short is read every 30 s, a 6 s asset every 2 s, an avatar under review every
 * 10 min); doubled once a job runs past twice its typical time, since a slow service gains
 * nothing from being asked more; ±20 % jitter, so a thousand jobs submitted together do not
 * poll together forever.
 */
export function pollDelayMs(typicalSeconds: number, ageMs: number, timeScale: number, random: Random): number {
  const typicalMs = typicalSeconds * 1000;
  let interval = typicalMs / 6;
  if (ageMs > 2 * typicalMs * timeScale) interval *= 2;
  interval = Math.min(POLL_BOUNDS.maxMs, Math.max(POLL_BOUNDS.minMs, interval)) * timeScale;
  const jitter = 0.8 + 0.4 * random();
  return Math.max(FLOOR_MS, Math.round(interval * jitter));
}
