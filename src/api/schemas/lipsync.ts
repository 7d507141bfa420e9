import { z } from 'zod';
import { Caption } from './caption.js';
import {
  ModelVersion, Timestamp, Uuid, VideoAspectRatio, VideoJobStatus, WebhookUrl, ro, stringMax,
} from './common.js';

/** "AI Avatar v2: each input_text up to 800 characters". */
export const LIPSYNC_TEXT_MAX = 800;
/** "lipsync ids filter: max 100 entries". */
export const IDS_FILTER_MAX = 100;

export const LipsyncItem = z.looseObject({
  id: Uuid,
  status: VideoJobStatus,
  output: ro(z.string()),
  video_thumbnail: ro(z.string()),
  created_at: ro(Timestamp),
  updated_at: ro(Timestamp),
  credits_used: ro(z.number()),
  duration: ro(z.number()),
  // A string on lipsync items (behaviour notes); accept a number too.
  progress: ro(z.union([z.string(), z.number()])),
  failed_reason: ro(z.string()),
  preview: ro(z.string()),
  editor_url: ro(z.string()),
  aspect_ratio: ro(VideoAspectRatio),
  video_inputs: ro(z.array(z.unknown())),
  name: ro(z.string()),
  media_job: ro(z.string()),
  webhook_url: ro(z.string()),
  model_version: ro(ModelVersion),
});
export type LipsyncItem = z.infer<typeof LipsyncItem>;

/** One scene of a lipsync: who speaks, what is said, over which background. */
export const LipsyncVideoInput = z.strictObject({
  character: z.looseObject({ type: z.literal('avatar'), avatar_id: Uuid }),
  voice: z.looseObject({
    type: z.literal('text'),
    input_text: z.string().min(1).max(LIPSYNC_TEXT_MAX),
    voice_id: Uuid.optional(),
  }),
  background: z.strictObject({ type: z.enum(['image', 'video']), url: z.url() }).optional(),
  caption_setting: Caption.nullish(),
});
export type LipsyncVideoInput = z.infer<typeof LipsyncVideoInput>;

/** POST /api/lipsyncs_v2/ (behaviour notes). */
export const LipsyncCreate = z.strictObject({
  video_inputs: z.array(LipsyncVideoInput).min(1),
  aspect_ratio: VideoAspectRatio.optional(),
  name: stringMax(255).optional(),
  webhook_url: WebhookUrl,
  model_version: ModelVersion.optional(),
});
export type LipsyncCreate = z.infer<typeof LipsyncCreate>;

/** Query of GET /api/lipsyncs_v2/ (and the ids lists of other kinds). */
export const ListQuery = z.strictObject({
  ids: z.array(Uuid).min(1).max(IDS_FILTER_MAX).optional(),
  created_after: z.string().optional(),
  created_before: z.string().optional(),
});
export type ListQuery = z.infer<typeof ListQuery>;
