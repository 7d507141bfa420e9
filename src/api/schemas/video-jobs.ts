import { z } from 'zod';
import { Caption, CaptionRead } from './caption.js';
import {
  PERMISSION_TYPES, Timestamp, Uuid, VideoAspectRatio, VideoJobStatus, Volume, WebhookUrl, prose, ro,
  stringMax, urlMax,
} from './common.js';

export const AI_SHORT_STYLES = [
  '4K realistic', '3D', 'Cinematic', 'Cartoonish', 'Line art', 'Pixel art', 'Mysterious',
  'Steam punk', 'Collage', 'Kawaii',
] as const;

export const EDITING_STYLES = ['film', 'geometric_gradient', 'glitch', 'glitter_gradient', 'paper'] as const;

/** Fields AI Shorts and AI Editing jobs share, as read. */
const videoJobFields = {
  id: Uuid,
  status: VideoJobStatus,
  failed_reason: ro(z.string()),
  video_output: ro(z.string()),
  preview: ro(z.string()),
  editor_url: ro(z.string()),
  is_hidden: ro(z.boolean()),
  progress: ro(z.number()),
  credits_used: ro(z.number()),
  duration: ro(z.number()),
  media_job: ro(z.string()),
  permission_type: ro(z.enum(PERMISSION_TYPES)),
  created_at: ro(Timestamp),
  updated_at: ro(Timestamp),
  user: ro(z.int()),
  workspace: ro(Uuid),
  name: ro(z.string()),
  script: ro(z.string()),
  aspect_ratio: ro(VideoAspectRatio),
  created_from_api: ro(z.boolean()),
  caption_setting: ro(CaptionRead),
  background_music_url: ro(z.string()),
  background_music_volume: ro(z.number()),
  voiceover_volume: ro(z.number()),
  webhook_url: ro(z.string()),
  brand: ro(Uuid),
};

export const AiShort = z.looseObject({
  ...videoJobFields,
  style: ro(z.enum(AI_SHORT_STYLES)),
  accent: ro(Uuid),
});
export type AiShort = z.infer<typeof AiShort>;

export const AiEditing = z.looseObject({
  ...videoJobFields,
  is_talking_video: ro(z.boolean()),
  is_one_person_in_video: ro(z.boolean()),
  editing_style: ro(z.enum(EDITING_STYLES)),
  audio_url: ro(z.string()),
  video_url: ro(z.string()),
  size: ro(z.number()),
});
export type AiEditing = z.infer<typeof AiEditing>;

/** Optional presentation fields both creation bodies take. */
const soundAndCaptions = {
  caption_setting: Caption.nullish(),
  background_music_url: urlMax(255).nullish(),
  background_music_volume: Volume,
  voiceover_volume: Volume,
  webhook_url: WebhookUrl,
};

/** POST /api/ai_shorts/ — aspect_ratio, script and style are required. */
export const AiShortCreate = z.strictObject({
  aspect_ratio: VideoAspectRatio,
  script: prose().min(1),
  style: z.enum(AI_SHORT_STYLES),
  accent: Uuid.nullish(),
  name: stringMax(255).optional(),
  brand: Uuid.nullish(),
  ...soundAndCaptions,
});
export type AiShortCreate = z.infer<typeof AiShortCreate>;

/** POST /api/ai_editing/ — the input video is required; the rest has service defaults. */
export const AiEditingCreate = z.strictObject({
  video_url: stringMax(255).min(1),
  editing_style: z.enum(EDITING_STYLES).optional(),
  ...soundAndCaptions,
});
export type AiEditingCreate = z.infer<typeof AiEditingCreate>;
