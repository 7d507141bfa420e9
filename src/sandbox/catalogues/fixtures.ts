import { PRODUCT_IMAGE_CREDITS, PRODUCT_VIDEO_CREDITS } from '../prices.js';

/**
 * Resources every sandbox account has from its first start, with FIXED ids, so manifests that act
 * on existing things (product_regen, persona_delete) have something to act on: on the live service
 * those ids are the user's own. Documented in docs/sandbox.md ("Fixtures").
 *
 * A fixture was made before the sandbox existed: it is not counted in the stats, not charged to the
 * ledger (its `credits_used` is what it cost then) and not listed by /__sandbox/jobs, which lists
 * what the sandbox made. It is there at every start, journal or not; acting on it is an ordinary
 * journalled operation, so a deleted fixture stays deleted when its journal is replayed.
 */
export interface SandboxFixture {
  id: string;
  family: 'product' | 'persona';
  /** The creating operation's kind, as the stats would name it. */
  kind: string;
  /** The resource's own fields, as its read operation shows them. */
  fields: Record<string, unknown>;
  /** Output files: name → what to serve (a PNG drawn from the name, or the sample MP4). */
  files: Record<string, 'png' | 'mp4'>;
  /** Credits it cost when it was made. */
  creditsUsed: number;
  /** Its life cycle as it happened: each status and the seconds after `started` it was reached. */
  walk: [status: string, seconds: number][];
  /** When it was made: a fixed instant before any sandbox starts, so reads are the same every time. */
  started: string;
}

/** The fixed ids, by use; `FIXTURE_IDS.productTasks[0]` is what examples/product-regen.yaml names. */
export const FIXTURE_IDS = {
  productTasks: ['5eed0000-0000-4000-8000-000000000001', '5eed0000-0000-4000-8000-000000000002'],
  personas: ['5eed0000-0000-4000-8000-000000000101', '5eed0000-0000-4000-8000-000000000102'],
  personaVoices: ['5eed0000-0000-4000-8000-000000000201', '5eed0000-0000-4000-8000-000000000202'],
} as const;

/** A product task's walk through gen_image (rested 43 s at image_generated) and gen_video. */
const PRODUCT_WALK: [string, number][] = [
  ['initializing', 0], ['image_generating', 2], ['image_generated', 17], ['video_generating', 60], ['video_generated', 180],
];

/** An avatar's walk: processing of 9 minutes, then a day and a half of review (docs/sandbox.md, Timing model). */
const PERSONA_WALK: [string, number][] = [
  ['pending', 0], ['processing', 5], ['voice_creating', 65], ['video_validating', 185], ['crop_and_matte', 245],
  ['reviewing', 545], ['done', 545 + 36 * 3600],
];

function productTask(id: string, started: string, product: string, prompts: { image: string; video: string }): SandboxFixture {
  const url = `https://shop.example.com/img/${product}.png`;
  return {
    id, family: 'product', kind: 'product_image', started, walk: PRODUCT_WALK,
    creditsUsed: PRODUCT_IMAGE_CREDITS + PRODUCT_VIDEO_CREDITS, files: { 'photo.png': 'png', 'video.mp4': 'mp4' },
    fields: {
      type: 'product_anyshot', product_url: url, product_showcase_url: url, aspect_ratio: '9x16', override_avatar: null,
      image_prompt: prompts.image, video_prompt: prompts.video, motion_style: '',
    },
  };
}

function persona(id: string, voiceId: string, started: string, creator: string, gender: string): SandboxFixture {
  return {
    id, family: 'persona', kind: 'persona', started, walk: PERSONA_WALK, creditsUsed: 0, files: { 'lipsync-input.mp4': 'mp4' },
    fields: {
      creator_name: creator, gender, gdown_url: `https://drive.example.com/uploads/${creator.split(' ')[0]!.toLowerCase()}-material.zip`,
      video_scene: 'studio', keywords: 'friendly, outdoors', labels: ['sandbox-fixture'], original_voice_provider: 'provider-a',
      voice_id: voiceId,
    },
  };
}

/** Two finished product tasks (video_generated) and two finished avatars (done). */
export const FIXTURES: readonly SandboxFixture[] = [
  productTask(FIXTURE_IDS.productTasks[0], '2025-12-01T09:00:00.000Z', 'trail-runner-2',
    { image: 'the shoe on a wet rock, morning light', video: 'slow push-in' }),
  productTask(FIXTURE_IDS.productTasks[1], '2025-12-01T09:10:00.000Z', 'summit-jacket',
    { image: 'the jacket on a hanger against a mountain view', video: 'gentle sway in the wind' }),
  persona(FIXTURE_IDS.personas[0], FIXTURE_IDS.personaVoices[0], '2025-11-20T10:00:00.000Z', 'Robin Fixture', 'f'),
  persona(FIXTURE_IDS.personas[1], FIXTURE_IDS.personaVoices[1], '2025-11-20T11:00:00.000Z', 'Sam Fixture', 'm'),
];
