import type { BorealResolution } from '../api/schemas/boreal.js';
import type { MODEL_VERSIONS } from '../api/schemas/common.js';

/**
 * The spec's pricing rules ("Limits → Credits"), as pure functions of what a job is. The sandbox
 * charges with them and the planner estimates with them, so the two can never disagree.
 * Amounts are credits; fractional prices (Aurora, Boreal-H3) are kept to one decimal place.
 */

/**
 * Rounds to a tenth of a credit, the finest unit any price has (Aurora, Boreal-H3), so sums and
 * products drop binary noise: 0.7 * 3 is 2.1, not 2.0999999999999996. The one definition: the
 * sandbox's ledger keeps its sums with it too.
 */
export const tenths = (credits: number) => Math.round(credits * 10) / 10;

/** `creditsPerBlock` for every started block of `blockSeconds`; a job of any length pays one block. */
export function perStartedBlock(seconds: number, blockSeconds: number, creditsPerBlock: number): number {
  return Math.max(1, Math.ceil(seconds / blockSeconds)) * creditsPerBlock;
}

/** Rule 1: AI Shorts and AI Editing cost 5 credits per started 30 seconds of video. */
export const aiVideoCredits = (seconds: number) => perStartedBlock(seconds, 30, 5);

/** Rule 2: regenerating a product video costs 1 credit. */
export const REGEN_CREDITS = 1;

/** Rule 3: HTML ads cost 10 per ad; failed ads are refunded, so only finished ads are paid for. */
export const HTML_AD_CREDITS = 10;
export const htmlAdsCredits = (finishedAds: number) => finishedAds * HTML_AD_CREDITS;

/** Behaviour notes: creating a link by scraping a page costs 1 credit. */
export const LINK_SCRAPE_CREDITS = 1;

export type LipsyncModel = (typeof MODEL_VERSIONS)[number];

/**
 * Rule 4: lipsync price by model_version. standard and boreal are billed per started 30 s; the
 * Aurora models per second, and "partial seconds round up" (billing made per second in 2026-05).
 */
export function lipsyncCredits(model: LipsyncModel, seconds: number): number {
  const wholeSeconds = Math.max(1, Math.ceil(seconds));
  switch (model) {
    case 'standard':
      return perStartedBlock(seconds, 30, 5);
    case 'boreal':
      return perStartedBlock(seconds, 30, 10);
    case 'aurora_v1':
      return wholeSeconds;
    case 'aurora_v1_fast':
      return tenths(wholeSeconds * 0.5);
    case 'aurora_v2':
      return tenths(wholeSeconds * 0.7);
  }
}

/** Rule 5: model boreal, each started 10 seconds costs 1 (720p), 3 (1080p) or 12 (2k). */
export const BOREAL_CREDITS_PER_10S: Partial<Record<BorealResolution, number>> = { '720p': 1, '1080p': 3, '2k': 12 };

export function borealCredits(resolution: BorealResolution, seconds: number): number {
  const rate = BOREAL_CREDITS_PER_10S[resolution];
  if (rate === undefined) throw new RangeError(`boreal has no price at ${resolution}`);
  return perStartedBlock(seconds, 10, rate);
}

/** Rule 6: boreal-h3 per-second price and per-second price of reference video, by resolution. */
export const H3_CREDITS_PER_SECOND: Partial<Record<BorealResolution, number>> = { '768p': 0.4, '1088p': 1.2, '2k': 2.6 };
export const H3_REFERENCE_VIDEO_PER_SECOND: Partial<Record<BorealResolution, number>> = { '768p': 0.4, '1088p': 0.6, '2k': 0.6 };
/** The first 5 reference images are free; each further one costs 0.2. */
export const H3_FREE_REFERENCE_IMAGES = 5;
export const H3_EXTRA_REFERENCE_IMAGE_CREDITS = 0.2;
/** Reference video is counted up to 15 seconds of combined length. */
export const H3_REFERENCE_VIDEO_MAX_SECONDS = 15;

export interface H3Inputs {
  resolution: BorealResolution;
  seconds: number;
  referenceImages: number;
  /** Combined length of the reference videos, in seconds. */
  referenceVideoSeconds: number;
}

/**
 * Rounds up to the next half credit, as rule 6 says the total price is: 4.04 is 4.5, 4.0 stays 4.
 * The 1e-9 only absorbs binary noise (0.4 * 7 is 2.8000000000000003, still 3 once doubled and
 * ceiled); any real excess over a half, however small (a hundredth of a credit), rounds up.
 */
export const roundUpToHalf = (credits: number) => Math.ceil(credits * 2 - 1e-9) / 2 + 0; // + 0: never -0 for a free job

export function h3Credits(input: H3Inputs): number {
  const perSecond = H3_CREDITS_PER_SECOND[input.resolution];
  const videoRate = H3_REFERENCE_VIDEO_PER_SECOND[input.resolution];
  if (perSecond === undefined || videoRate === undefined) {
    throw new RangeError(`boreal-h3 has no price at ${input.resolution}`);
  }
  const extraImages = Math.max(0, input.referenceImages - H3_FREE_REFERENCE_IMAGES);
  const videoSeconds = Math.min(input.referenceVideoSeconds, H3_REFERENCE_VIDEO_MAX_SECONDS);
  return roundUpToHalf(
    input.seconds * perSecond + extraImages * H3_EXTRA_REFERENCE_IMAGE_CREDITS + videoSeconds * videoRate,
  );
}
