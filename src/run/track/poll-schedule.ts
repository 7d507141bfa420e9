import type { Random } from '../../util/random.js';

/** Bounds of a poll interval at time scale 1. */
export const POLL_BOUNDS = { minMs: 2_000, maxMs: 600_000 } as const;
/** Never poll faster than this, however far the time scale shrinks intervals. */
const FLOOR_MS = 20;

/**
 * The wait before the next read of a job, from its expected duration (see expected-duration.ts)
 * and its age.
 *
 * Policy: the first read comes a third of the expected duration after submission (nothing is
 * finished before that; a job finishing early is still seen well before its expected end); after
 * it, a read every sixth of the expected duration, so a job is seen finished soon after it is (a
 * 3 min AI Short every 30 s, a 6 s asset every 2 s, an avatar under review every 10 min);
 * doubled once a job runs past twice its expected time, since a slow service gains nothing from
 * being asked more; every wait within the bounds; ±20 % jitter, so a thousand jobs submitted
 * together do not poll together forever.
 */
export function pollDelayMs(expectedSeconds: number, ageMs: number, timeScale: number, random: Random): number {
  const expectedMs = expectedSeconds * 1000;
  const bounded = (ms: number) => Math.min(POLL_BOUNDS.maxMs, Math.max(POLL_BOUNDS.minMs, ms)) * timeScale;
  const jitter = 0.8 + 0.4 * random();
  const first = bounded(expectedMs / 3);
  if (ageMs < first) return Math.max(FLOOR_MS, Math.round((first - ageMs) * jitter));
  let interval = expectedMs / 6;
  if (ageMs > 2 * expectedMs * timeScale) interval *= 2;
  return Math.max(FLOOR_MS, Math.round(bounded(interval) * jitter));
}

/**
 * The wait before the next read of a job once its step's real pace is known (duration-model.ts):
 * `predictedMs` its predicted life, `misses` the reads since then that still found it unfinished.
 *
 * Policy: read it right when it should be finished — 0.4 % past the prediction, at least 5 ms —
 * so its slot goes to the next job at once; with every job's first read at its own predicted end,
 * jobs that started together finish, and are read, together in one list. A job not finished then
 * is read again after a twentieth of its predicted life, doubling with each further miss up to
 * the ordinary cadence (a queued job is not read in a tight loop). Why so close: a slot is idle
 * from the job's end to the read that sees it, on every one of a run's waves; at 1 % and a tenth
 * (the earlier margins) that was 15–20 ms of each 1.1 s slot cycle in the 10,000-job benchmark,
 * and a read that comes a few ms early costs one read more, not a wave's delay.
 *
 * With webhooks the delivery says when a job is finished and frees its slot, so the read is only
 * the safety net for a dropped delivery: half its life later (plus 1 %), and a tenth of its life
 * after a miss, doubling. Kept wider than polling's: the closer margins, tried there too, cost
 * 0.04 more reads a job at 10,000 jobs and gained nothing (the slot is not waiting for the read).
 */
export function predictedDelayMs(
  input: { predictedMs: number; ageMs: number; misses: number; webhooks: boolean; ordinaryMs: number },
): number {
  const { predictedMs, ageMs, misses, webhooks, ordinaryMs } = input;
  const due = lateAfterMs(predictedMs, webhooks) + Math.max(predictedMs * (webhooks ? 0.01 : 0.004), FLOOR_MS / 4);
  if (ageMs < due && misses === 0) return Math.max(1, Math.round(due - ageMs));
  // With webhooks a late job's delivery is still to come: its reads stay the slower safety net.
  const again = webhooks ? predictedMs * 0.1 * 2 ** Math.min(misses, 10) : predictedMs * 0.05 * 2 ** Math.min(Math.max(misses - 1, 0), 10);
  return Math.round(Math.max(FLOOR_MS, Math.min(again, Math.max(FLOOR_MS, ordinaryMs))));
}

/**
 * The age past which a job of predicted life `predictedMs` is late (a read then finding it
 * unfinished is a miss): its predicted end, or with webhooks half a life after it, when the
 * safety-net read comes (predictedDelayMs).
 */
export function lateAfterMs(predictedMs: number, webhooks: boolean): number {
  return predictedMs * (webhooks ? 1.5 : 1);
}
