import type { PlannedJob } from '../../plan/types.js';
import { spokenSeconds } from '../../pricing/index.js';

/**
 * The media length each kind's typical duration (adapters' `typicalSeconds`, from the behaviour
 * notes' observed durations) was seen for. Assumption (the notes give durations, not the lengths
 * behind them): a minute-long-ish AI Short script of ~30 s spoken, a "short lipsync" of ~10 s of
 * speech, a Boreal clip of 10 s. Kept here, in one place.
 */
const REFERENCE_MEDIA_SECONDS: Partial<Record<PlannedJob['kind'], number>> = {
  ai_short: 30,
  lipsync_v2: 10,
  boreal: 10,
};

/**
 * How far a job's own media length may stretch its kind's typical duration. Why bounded: the
 * service has fixed overheads (queueing, rendering set-up) a very short job does not escape, and
 * the model is rough; the poll cadence's own bounds still apply on top.
 */
const STRETCH = { min: 0.5, max: 4 } as const;

/**
 * The seconds a job is expected to take at the service: its kind's typical duration, scaled by the
 * job's own media length where the plan's inputs say it — an AI Short's spoken script length, a
 * lipsync's spoken text, a Boreal clip's duration; otherwise the kind's typical duration as is.
 */
export function expectedSeconds(job: Pick<PlannedJob, 'kind' | 'request'> | undefined, typicalSeconds: number): number {
  if (!job) return typicalSeconds;
  const reference = REFERENCE_MEDIA_SECONDS[job.kind];
  const media = reference === undefined ? undefined : mediaSeconds(job);
  if (reference === undefined || media === undefined || media <= 0) return typicalSeconds;
  const stretch = Math.min(STRETCH.max, Math.max(STRETCH.min, media / reference));
  return typicalSeconds * stretch;
}

/** The media length the request asks for, in seconds, when the request says it. */
function mediaSeconds(job: Pick<PlannedJob, 'kind' | 'request'>): number | undefined {
  const request = job.request;
  switch (job.kind) {
    case 'ai_short':
      return typeof request.script === 'string' ? spokenSeconds(request.script).expected : undefined;
    case 'lipsync_v2': {
      const inputs = Array.isArray(request.video_inputs) ? (request.video_inputs as Record<string, unknown>[]) : [];
      const texts = inputs.map((input) => (input.voice as Record<string, unknown> | undefined)?.input_text).filter((t): t is string => typeof t === 'string');
      return texts.length === 0 ? undefined : texts.reduce((sum, text) => sum + spokenSeconds(text).expected, 0);
    }
    case 'boreal':
      return typeof request.duration === 'number' ? request.duration : undefined;
    default:
      return undefined;
  }
}
