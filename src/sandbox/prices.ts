/**
 * Sandbox prices for what the spec prices nowhere (docs/sandbox.md, "Prices"). The spec's own rules
 * (AI video, regen, HTML ads, lipsync, Boreal, Boreal-H3) come from src/pricing, never from here.
 */
import { perStartedBlock } from '../pricing/index.js';

/** Observed: an ad clone of a 30 s reference cost 84 credits; billed per started 30 s like AI video. */
export const adCloneCredits = (referenceSeconds: number) => perStartedBlock(referenceSeconds, 30, 84);

/**
 * Product tasks: only regen_video is priced (1). A first image is priced like a regen (1), and the
 * first video like an AI video block (5), so a whole product flow costs more than a regen.
 */
export const PRODUCT_IMAGE_CREDITS = 1;
export const PRODUCT_VIDEO_CREDITS = 5;

/** Avatars, voice clones and own-parameter links: no observed charge, so free in the sandbox. */
export const PERSONA_CREDITS = 0;
export const VOICE_CLONE_CREDITS = 0;
export const LINK_WITH_PARAMS_CREDITS = 0;

/** A text generation: 1 credit per task, the smallest unit that still shows up in a ledger. */
export const TEXT_CREDITS = 1;

/** Assets, per generated output, by the model's kind of output: images cheap, video dear. */
export const ASSET_CREDITS_PER_OUTPUT = { image: 2, video: 10, audio: 3, text: 1 } as const;

/** Custom template renders: like AI video, 5 per started 30 s of the template's length. */
export const templateRenderCredits = (seconds: number) => perStartedBlock(seconds, 30, 5);
