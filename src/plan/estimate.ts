import { BOREAL_MAX_SECONDS, type BorealResolution } from '../api/schemas/index.js';
import {
  aiVideoCredits, borealCredits, H3_REFERENCE_VIDEO_MAX_SECONDS, h3Credits, htmlAdsCredits,
  LINK_SCRAPE_CREDITS, lipsyncCredits, REGEN_CREDITS, spokenSeconds, type LipsyncModel, type SecondsRange,
} from '../pricing/index.js';
import type { StepKind } from '../step-kinds.js';
import { statedSeconds } from '../pricing/stated-length.js';
import type { CreditEstimate } from './types.js';

/**
 * Credits per job, from the spec's pricing rules (src/pricing, shared with the sandbox so an
 * estimate brackets what it charges). Exact where the request fixes the price; a low/expected/high
 * range where a length is unknown until the service renders; null — unknown, never 0 — where
 * neither the spec nor the behaviour notes give a price. A field still holding a reference
 * (`{{ steps… }}`) is unknown at plan time, so a price that depends on it is unknown too.
 */
type Request = Record<string, unknown>;
type Estimator = (request: Request) => CreditEstimate | null;

const exact = (credits: number): CreditEstimate => ({ low: credits, expected: credits, high: credits, exact: true });
const range = (low: number, expected: number, high: number): CreditEstimate => ({ low, expected, high, exact: false });
const fromSeconds = (s: SecondsRange, price: (seconds: number) => number) => range(price(s.low), price(s.expected), price(s.high));
const known = (value: unknown): value is string => typeof value === 'string' && !value.includes('{{');
const unknown: Estimator = () => null;

export const ESTIMATORS: Record<StepKind, Estimator> = {
  // Rule 1: 5 per started 30 s; the length follows the script's spoken length.
  ai_short: (r) => (known(r.script) ? fromSeconds(spokenSeconds(r.script), aiVideoCredits) : null),
  // Rule 1 too, by the input video's length: known only when its URL states it.
  ai_editing: (r) => {
    const seconds = statedSeconds(r.video_url);
    return seconds === undefined ? null : exact(aiVideoCredits(seconds));
  },
  product_regen: () => exact(REGEN_CREDITS),
  link: () => exact(LINK_SCRAPE_CREDITS),
  // Rule 3: 10 per ad, one ad per style; failed ads are refunded, so this is also the ceiling.
  html_ads: (r) => (Array.isArray(r.style_ids) ? exact(htmlAdsCredits(r.style_ids.length)) : null),
  lipsync_v2: lipsyncEstimate,
  boreal: (r) => (r.model === 'boreal-h3' ? h3Estimate(r) : borealEstimate(r)),
  // Behaviour notes: lists and reads are free.
  music: () => exact(0),
  // Not priced by the spec nor the behaviour notes (an ad clone was once observed at 84 credits).
  persona: unknown,
  // Deleting an avatar and updating a link (a PUT of the link's own fields) are priced nowhere:
  // they make nothing, so they cost nothing (their runs agree: they reserve and count 0).
  persona_delete: () => exact(0),
  voice_clone: unknown,
  link_with_params: unknown,
  link_update: () => exact(0),
  ad_clone: unknown,
  text_generation: unknown,
  asset_generation: unknown,
  custom_template: unknown,
};

export function estimateCredits(kind: StepKind, request: Request): CreditEstimate | null {
  return ESTIMATORS[kind](request);
}

/** Rule 4, by model: the video lasts as long as its scenes' texts take to say. */
function lipsyncEstimate(r: Request): CreditEstimate | null {
  const inputs = Array.isArray(r.video_inputs) ? (r.video_inputs as { voice?: { input_text?: unknown } }[]) : [];
  const texts = inputs.map((scene) => scene.voice?.input_text);
  if (texts.length === 0 || !texts.every(known)) return null;
  const model = (typeof r.model_version === 'string' ? r.model_version : 'standard') as LipsyncModel;
  return fromSeconds(spokenSeconds(texts.join(' ')), (s) => lipsyncCredits(model, s));
}

/**
 * Rule 5. With audio_url the audio sets the length, up to the resolution's limit: exact when the
 * URL states its length, else a range from one block to the limit, expecting half of it.
 */
function borealEstimate(r: Request): CreditEstimate | null {
  const resolution = (r.resolution ?? '720p') as BorealResolution;
  const max = BOREAL_MAX_SECONDS[resolution] ?? 0;
  if (r.audio_url !== undefined) {
    const stated = statedSeconds(r.audio_url);
    if (stated !== undefined) return exact(borealCredits(resolution, Math.min(stated, max)));
    return range(borealCredits(resolution, 1), borealCredits(resolution, max / 2), borealCredits(resolution, max));
  }
  return typeof r.duration === 'number' ? exact(borealCredits(resolution, r.duration)) : null;
}

/**
 * Rule 6. Reference videos are billed by combined length (counted up to 15 s). Lengths the URLs
 * state are counted as stated; each video that states none adds 0 to 15 s, expecting half.
 */
function h3Estimate(r: Request): CreditEstimate | null {
  if (typeof r.duration !== 'number') return null;
  const resolution = (r.resolution ?? '768p') as BorealResolution;
  const count = (v: unknown) => (Array.isArray(v) ? v.length : 0);
  const base = { resolution, seconds: r.duration, referenceImages: count(r.reference_image_urls) };
  const price = (videoSeconds: number) => h3Credits({ ...base, referenceVideoSeconds: videoSeconds });
  const videos = Array.isArray(r.reference_video_urls) ? r.reference_video_urls.map(statedSeconds) : [];
  const stated = videos.reduce<number>((sum, s) => sum + (s ?? 0), 0);
  const unstated = videos.filter((s) => s === undefined).length;
  if (unstated === 0) return exact(price(stated));
  const max = H3_REFERENCE_VIDEO_MAX_SECONDS;
  return range(price(stated), price(stated + (unstated * max) / 2), price(stated + unstated * max));
}
